"""A private OpenLDAP server for tests: its own configuration, database,
CA and server certificate under one directory, one ldap:// listener on a
loopback port (StartTLS offered, the certificate made for 127.0.0.1), no
systemd. The directory (dc=corp,dc=test):

  ou=people:  uid=paula (paula@corp.test), uid=rhea (rhea@corp.test),
              uid=sam (sam@corp.test), each with password "<uid>-ldap-1"
  ou=groups:  cn=legal (paula), cn=dlp-reviewers (rhea),
              cn=dlp-admins (nobody), all groupOfNames
  cn=reader,dc=corp,dc=test: the service account, password in
              DIR/reader.secret

    ldap = PrivateSlapd(directory); ldap.start(); ldap.url, ldap.ca_file,
    ldap.secret_file; ...; ldap.stop()

Needs the slapd package (cmake/install_deps.sh --test installs it,
unconfigured: the system's server stays off) and openssl.
"""
import os
import signal
import subprocess
import time

from private_postfix import DEADLINE, free_port, listening, wait_for

BASE = "dc=corp,dc=test"

LDIF = """dn: {base}
objectClass: dcObject
objectClass: organization
dc: corp
o: corp

dn: ou=people,{base}
objectClass: organizationalUnit
ou: people

dn: ou=groups,{base}
objectClass: organizationalUnit
ou: groups

dn: cn=reader,{base}
objectClass: person
objectClass: simpleSecurityObject
cn: reader
sn: reader
userPassword: reader-secret-1
""".format(base=BASE)

PEOPLE = ("paula", "rhea", "sam")
GROUPS = {"legal": ["paula"], "dlp-reviewers": ["rhea"], "dlp-admins": []}


class PrivateSlapd:
    def __init__(self, directory):
        self.dir = directory
        self.port = free_port()
        self.url = "ldap://127.0.0.1:%d" % self.port
        self.ca_file = os.path.join(directory, "ca.crt")
        self.secret_file = os.path.join(directory, "reader.secret")
        self.bind_dn = "cn=reader," + BASE
        self.proc = None

    def _certificates(self):
        d = self.dir
        run = lambda *a: subprocess.run(["openssl", *a], check=True,
                                        capture_output=True, timeout=60)
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=leakhound test CA", "-keyout",
            os.path.join(d, "ca.key"), "-out", self.ca_file)
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", os.path.join(d, "server.key"),
            "-out", os.path.join(d, "server.csr"))
        with open(os.path.join(d, "ext.cnf"), "w") as f:
            f.write("subjectAltName = IP:127.0.0.1\n")
        run("x509", "-req", "-in", os.path.join(d, "server.csr"), "-CA",
            self.ca_file, "-CAkey", os.path.join(d, "ca.key"),
            "-CAcreateserial", "-days", "2", "-extfile",
            os.path.join(d, "ext.cnf"), "-out", os.path.join(d, "server.crt"))

    def start(self):
        d = self.dir
        os.makedirs(os.path.join(d, "db"), exist_ok=True)
        self._certificates()
        with open(self.secret_file, "w") as f:
            f.write("reader-secret-1\n")
        conf = os.path.join(d, "slapd.conf")
        with open(conf, "w") as f:
            f.write("""include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {d}/slapd.pid
TLSCACertificateFile {ca}
TLSCertificateFile {d}/server.crt
TLSCertificateKeyFile {d}/server.key
database mdb
maxsize 10485760
suffix "{base}"
rootdn "cn=admin,{base}"
directory {d}/db
access to attrs=userPassword by anonymous auth by self read by * none
access to * by users read by * none
""".format(d=d, ca=self.ca_file, base=BASE))
        ldif = LDIF
        for uid in PEOPLE:
            ldif += ("\ndn: uid={u},ou=people,{b}\nobjectClass: inetOrgPerson\n"
                     "uid: {u}\ncn: {u}\nsn: {u}\nmail: {u}@corp.test\n"
                     "userPassword: {u}-ldap-1\n").format(u=uid, b=BASE)
        for name, members in GROUPS.items():
            ldif += "\ndn: cn={n},ou=groups,{b}\nobjectClass: groupOfNames\ncn: {n}\n".format(
                n=name, b=BASE)
            # groupOfNames needs a member: an empty group names the reader.
            for m in members or ["reader"]:
                dn = ("uid=%s,ou=people," % m if m != "reader" else "cn=reader,") + BASE
                ldif += "member: %s\n" % dn
        path = os.path.join(d, "data.ldif")
        with open(path, "w") as f:
            f.write(ldif)
        subprocess.run(["slapadd", "-f", conf, "-l", path], check=True,
                       capture_output=True, timeout=60)
        with open(os.path.join(d, "slapd.log"), "w") as log:
            self.proc = subprocess.Popen(
                ["slapd", "-f", conf, "-h", self.url + "/", "-d", "0"],
                stdout=log, stderr=log)
        wait_for(lambda: listening(self.port) or self.proc.poll() is not None,
                 "slapd on %d" % self.port)
        if self.proc.poll() is not None:
            raise AssertionError("slapd exited: " +
                                 open(os.path.join(d, "slapd.log")).read())

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
