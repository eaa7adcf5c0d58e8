# Sourced after Benchmarks/nginx.sh: nginx over TLS (HTTP/2 and HTTP/1.1) on 127.0.0.1, serving $work/www with a
# certificate from scripts/test-servers --certs. Needs: work. Sets: tls_port, tls_pid (the caller stops it).
scripts/test-servers --certs "$work/certs"
tls_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# keepalive_requests: nginx closes an HTTP/2 connection after 1,000 requests by default.
cat > "$work/nginx-tls.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx-tls.pid;
error_log $work/nginx-tls-error.log;
events { worker_connections 4096; }
http {
  access_log off; keepalive_requests 100000;
  server { listen 127.0.0.1:$tls_port ssl http2; root $work/www;
           ssl_certificate $work/certs/good.pem; ssl_certificate_key $work/certs/server.key; }
}
CONF
nginx -c "$work/nginx-tls.conf" &
tls_pid=$!
for _ in $(seq 50); do curl -s --cacert "$work/certs/ca.pem" -o /dev/null "https://127.0.0.1:$tls_port/" && break; sleep 0.1; done
