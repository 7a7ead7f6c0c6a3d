"""An HTTP client of the console for the tests and benchmarks: a cookie
jar, no redirects followed, the login form's CSRF token read from the page.

    c = Client(port); c.login("ada", password); status, headers, body = c.request("GET", "/incidents")
"""
import http.client
import urllib.parse


class Client:
    """HTTP with a cookie jar, no redirects followed."""

    def __init__(self, port, source="127.0.0.1", host=None, timeout=20):
        self.port, self.source, self.cookies = port, source, {}
        self.timeout = timeout  # seconds a request may take
        self.host = host  # the Host header, when not 127.0.0.1:PORT

    def request(self, method, path, fields=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout,
                                          source_address=(self.source, 0))
        h = dict(headers or {})
        if self.host:
            h.setdefault("Host", self.host)
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields)
            h["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            h["Cookie"] = "; ".join("%s=%s" % kv for kv in self.cookies.items())
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read().decode("utf-8", "replace")
        for value in r.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name] = rest.split(";")[0]
        conn.close()
        return r.status, r.headers, data

    def token(self, path):
        status, _, page = self.request("GET", path)
        assert status == 200, (status, path)
        marker = 'name="csrf" value="'
        at = page.index(marker) + len(marker)
        return page[at:page.index('"', at)]

    def login(self, user, password):
        token = self.token("/login")
        return self.request("POST", "/login", {"csrf": token, "user": user,
                                               "password": password,
                                               "next": "/incidents"})
