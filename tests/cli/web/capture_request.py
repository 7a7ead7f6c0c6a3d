#!/usr/bin/env python3
"""Captures the request a real HTTP client sends, for the web-channel tests.

    capture_request.py OUT_PREFIX -- CLIENT ARGS... {url} ...

Starts an HTTP server on a free loopback port, runs the client with {url}
replaced by the server's address (e.g. curl -F file=@memo.docx {url}), and
writes what arrived: OUT_PREFIX.headers (one "Name: value" per line, lower
case names) and OUT_PREFIX.body (the body, HTTP chunking removed). The
server answers 200 and stops after the one request; the client must exit
within 30 s.
"""
import http.server
import subprocess
import sys
import threading


class Capture(http.server.BaseHTTPRequestHandler):
    captured = None

    def _read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _handle(self):
        body = self._read_body()
        Capture.captured = (self.command, self.path, self.headers, body)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = _handle

    def log_message(self, *args):
        pass


def main():
    prefix = sys.argv[1]
    assert sys.argv[2] == "--"
    server = http.server.HTTPServer(("127.0.0.1", 0), Capture)
    url = "http://127.0.0.1:%d/upload/" % server.server_address[1]
    thread = threading.Thread(target=server.handle_request)
    thread.start()
    args = [a.replace("{url}", url) for a in sys.argv[3:]]
    subprocess.run(args, check=True, timeout=30, stdout=subprocess.DEVNULL)
    thread.join(timeout=30)
    server.server_close()
    if Capture.captured is None:
        sys.exit("no request arrived")
    _, _, headers, body = Capture.captured
    with open(prefix + ".headers", "w") as f:
        for name, value in headers.items():
            f.write("%s: %s\n" % (name.lower(), value))
    with open(prefix + ".body", "wb") as f:
        f.write(body)


if __name__ == "__main__":
    main()
