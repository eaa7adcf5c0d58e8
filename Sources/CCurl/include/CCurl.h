// libcurl for Swift: one typed wrapper per argument kind of the variadic setopt/getinfo calls.
#ifndef SLUICE_CCURL_H
#define SLUICE_CCURL_H

#include <curl/curl.h>

static inline CURLcode sluice_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_write(CURL *h, CURLoption o, curl_write_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_read(CURL *h, CURLoption o, curl_read_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_xferinfo(CURL *h, CURLoption o, curl_xferinfo_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_seek(CURL *h, CURLoption o, curl_seek_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sluice_easy_setopt_debug(CURL *h, CURLoption o, curl_debug_callback v) { return curl_easy_setopt(h, o, v); }

static inline CURLMcode sluice_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

static inline CURLcode sluice_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sluice_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode sluice_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

/// Returns 1 and fills `easy` and `result` for the next finished transfer, 0 when none is left.
static inline int sluice_multi_next_done(CURLM *m, CURL **easy, CURLcode *result) {
    int left = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(m, &left)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *easy = msg->easy_handle;
            *result = msg->data.result;
            return 1;
        }
    }
    return 0;
}

/// The write callback's "pause" return value, which Swift cannot import as a macro of a cast.
static inline size_t sluice_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline size_t sluice_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
static inline size_t sluice_readfunc_abort(void) { return CURL_READFUNC_ABORT; }

#endif
