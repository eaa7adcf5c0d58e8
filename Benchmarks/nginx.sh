# Sourced by the benchmark scripts: installs what is missing, generates the data (a SIZE MiB file and 2,000 files
# of 16 KiB), then serves $work/www on 127.0.0.1:$port with nginx.
# Needs: work (a directory), size_mib. Sets: port, file, nginx_pid; stops nginx on exit.
missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
[ -x /usr/bin/time ] || missing+=(time)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v wget >/dev/null 2>&1 || missing+=(wget)
command -v aria2c >/dev/null 2>&1 || missing+=(aria2)
[ ${#missing[@]} -eq 0 ] || { apt-get update && apt-get install -y "${missing[@]}"; }
mkdir -p "$work/www"
file="$work/www/big.bin"
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -ne $((size_mib * 1048576)) ]; then
  head -c $((size_mib * 1048576)) /dev/urandom > "$file"
fi
if [ "$(ls "$work/www/small" 2>/dev/null | wc -l)" -ne 2000 ]; then  # 2,000 files of 16 KiB
  rm -rf "$work/www/small" && mkdir -p "$work/www/small"
  head -c $((2000 * 16384)) /dev/urandom | split -b 16384 -a 4 -d - "$work/www/small/f"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http { access_log off; sendfile on; keepalive_requests 100000; server { listen 127.0.0.1:$port; root $work/www; } }
CONF
nginx -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
