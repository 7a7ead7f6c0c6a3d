#include "cli/policy/policy_file.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const char* text) {
  auto policy = ParsePolicy(text, "p.toml");
  return policy.ok() ? "" : std::string(policy.status().message());
}

TEST(PolicyFileTest, EachMistakeIsReportedWithItsLine) {
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\nacton = \"reject\"\n"),
              HasSubstr("p.toml:3: unknown key 'acton' in a rule"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\naction = \"bounce\"\n"),
              HasSubstr("p.toml:3: unknown action 'bounce'"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\nseverity = 3\n"),
              HasSubstr("p.toml:3: 'severity' must be a string"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\n[rule.when]\nsenders = "
                      "[\"bob\"]\n"),
              HasSubstr("p.toml:4: malformed address pattern 'bob'"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\n[rule.when]\nsenders = "
                      "[\"group:legal\"]\n"),
              HasSubstr("p.toml:4: unknown group 'legal'"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\n[rule.when]\nmin_share = "
                      "50\n"),
              HasSubstr("p.toml:4: 'min_share' must be a share from 0 to 1"));
  EXPECT_THAT(ErrorOf("[[rule]]\nseverity = \"low\"\n"),
              HasSubstr("p.toml:1: a rule needs a name"));
  EXPECT_THAT(ErrorOf("internal_domains = [\"example.com\"\n"),
              HasSubstr("p.toml:"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\naction = \"redirect\"\n"),
              HasSubstr("need a 'reviewer' address"));
  // Domains are host names (IDNA through ICU), written without '@'.
  EXPECT_THAT(ErrorOf("internal_domains = [\"@corp.example.com\"]\n"),
              HasSubstr("p.toml:1: 'internal_domains': '@corp.example.com' is "
                        "not a domain: write it without '@'"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\n[rule.when]\nsenders = "
                      "[\"@counsel..example\"]\n"),
              HasSubstr("p.toml:4: malformed address pattern "
                        "'@counsel..example' (user@domain, @domain or "
                        "group:NAME): 'counsel..example' is not a domain: an "
                        "empty label"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"s\"\ntype = \"syslog\"\n"
                      "url = \"udp://h:514\"\nformat = \"JSON\"\n"),
              HasSubstr("p.toml:5: 'format' must be cef or leef"));
}

TEST(PolicyFileTest, AWholeFileIsRead) {
  auto policy = ParsePolicy(R"(
internal_domains = ["Example.com", "Bücher.example"]
[groups]
legal = ["Alice@Example.com"]
[[rule]]
name = "outside"
severity = "medium"
steps = [ { documents = 3, severity = "high" } ]
mode = "monitor"
action = "reject"
reject_text = "No."
notify = ["dlp@example.com"]
[rule.when]
labels_any = ["confidential"]
external_recipient = true
[[rule.unless]]
senders = ["group:legal"]
)",
                            "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_THAT(policy->internal_domains,
              testing::ElementsAre("example.com", "xn--bcher-kva.example"));
  EXPECT_THAT(policy->groups.at("legal"),
              testing::ElementsAre("alice@example.com"));
  ASSERT_EQ(policy->rules.size(), 1u);
  const PolicyRule& r = policy->rules[0];
  EXPECT_EQ(r.name, "outside");
  EXPECT_EQ(r.line, 5);
  EXPECT_TRUE(r.monitor);
  EXPECT_EQ(r.disposition, Disposition::kReject);
  EXPECT_EQ(r.reject_text, "No.");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].documents, 3u);
  EXPECT_EQ(r.when.external_recipient, true);
  ASSERT_EQ(r.unless.size(), 1u);
  EXPECT_THAT(r.unless[0].senders, testing::ElementsAre("group:legal"));
}

TEST(PolicyFileTest, DirectoryGroupsAndTheDirectoryAreRead) {
  auto policy = ParsePolicy(R"(
[directory]
url = "ldap://127.0.0.1:3890"
ca_file = "/etc/ssl/corp-ca.pem"
bind_dn = "cn=reader,dc=corp,dc=test"
bind_password_file = "/etc/leakhound/ldap.secret"
base_dn = "dc=corp,dc=test"
cache_seconds = 60
[directory.roles]
reviewer = "cn=dlp-reviewers,ou=groups,dc=corp,dc=test"
[groups]
legal = { directory = "cn=legal,ou=groups,dc=corp,dc=test" }
desk = ["@desk.corp.test"]
[[rule]]
name = "r"
[[rule.unless]]
senders = ["group:legal"]
)",
                            "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  ASSERT_TRUE(policy->directory.has_value());
  EXPECT_TRUE(policy->directory->start_tls);  // ldap:// needs StartTLS
  EXPECT_EQ(policy->directory->cache_seconds, 60);
  EXPECT_EQ(policy->directory->roles.at("reviewer"),
            "cn=dlp-reviewers,ou=groups,dc=corp,dc=test");
  EXPECT_EQ(policy->directory_groups.at("legal"),
            "cn=legal,ou=groups,dc=corp,dc=test");
  EXPECT_TRUE(policy->groups.at("legal").empty());  // filled by the gateway
  EXPECT_THAT(ErrorOf("[groups]\nlegal = { directory = \"cn=x\" }\n"),
              HasSubstr("directory groups need a [directory] table"));
  EXPECT_THAT(ErrorOf("[directory]\nurl = \"http://x\"\n"),
              HasSubstr("p.toml:2: [directory] needs a url"));
  // TLS or nothing: plaintext only when the file says so in as many words.
  EXPECT_THAT(ErrorOf("[directory]\nurl = \"ldap://x\"\nstart_tls = false\n"),
              HasSubstr("p.toml:3: start_tls = false sends passwords in clear"));
  auto plain = ParsePolicy(
      "[directory]\nurl = \"ldap://x\"\ninsecure_plaintext = true\n", "p.toml");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->directory->start_tls);
  EXPECT_TRUE(plain->directory->insecure_plaintext);
  EXPECT_THAT(ErrorOf("[directory]\nurl = \"ldaps://x\"\n[directory.roles]\n"
                      "root = \"cn=x\"\n"),
              HasSubstr("unknown key 'root' in [directory.roles]"));
}

TEST(PolicyFileTest, DestinationsAndTheOutboxAreRead) {
  auto policy = ParsePolicy(R"(
[outbox]
max_age_days = 3
max_events = 5000
console_url = "https://dlp.corp.test"

[[destination]]
name = "qradar"
type = "syslog"
url = "tls://siem.corp.test:6514"
format = "leef"
facility = "local7"
ca_file = "/etc/ssl/corp-ca.pem"
severities = ["high", "none"]
channels = ["mail"]

[[destination]]
name = "tickets"
type = "webhook"
url = "https://hooks.corp.test/dlp"
secret_file = "/etc/leakhound/hook.key"
events = ["incident"]
include_snippets = true
timeout_seconds = 3
max_retry_seconds = 30
)",
                            "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->outbox.max_age_days, 3);
  EXPECT_EQ(policy->outbox.max_events, 5000);
  EXPECT_EQ(policy->outbox.console_url, "https://dlp.corp.test");
  ASSERT_EQ(policy->destinations.size(), 2u);
  const DestinationSettings& q = policy->destinations[0];
  EXPECT_EQ(q.name, "qradar");
  EXPECT_FALSE(q.webhook);
  EXPECT_EQ(q.format, "leef");
  EXPECT_EQ(q.facility, 23);
  EXPECT_EQ(q.severities, (std::vector<std::string>{"high", "none"}));
  EXPECT_EQ(q.channels, std::vector<std::string>{"mail"});
  EXPECT_EQ(q.line, 7);
  const DestinationSettings& t = policy->destinations[1];
  EXPECT_TRUE(t.webhook);
  EXPECT_EQ(t.secret_file, "/etc/leakhound/hook.key");
  EXPECT_TRUE(t.include_snippets);
  EXPECT_EQ(t.timeout_seconds, 3);
  EXPECT_EQ(t.max_retry_seconds, 30);
  EXPECT_EQ(t.events, std::vector<std::string>{"incident"});
}

TEST(PolicyFileTest, ADestinationMistakeIsReportedAtTheBadKeysLine) {
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"kafka\"\n"),
              HasSubstr("p.toml:3: destination 'a': type must be syslog or "
                        "webhook"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"syslog\"\n"
                      "url = \"https://x\"\n"),
              HasSubstr("url must be udp://, tcp:// or tls://HOST:PORT"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"webhook\"\n"
                      "url = \"http://x/\"\nsecret_file = \"k\"\n"),
              HasSubstr("url must be https://"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"webhook\"\n"
                      "url = \"https://x/\"\n"),
              HasSubstr("needs a secret_file"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"syslog\"\n"
                      "url = \"udp://x:514\"\nseverities = [\"urgent\"]\n"),
              HasSubstr("p.toml:5: unknown severities value 'urgent'"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"syslog\"\n"
                      "url = \"udp://x:514\"\nfacility = \"local9\"\n"),
              HasSubstr("'facility' must be a syslog facility"));
  EXPECT_THAT(ErrorOf("[[destination]]\nname = \"a\"\ntype = \"syslog\"\n"
                      "url = \"udp://x:514\"\n[[destination]]\nname = "
                      "\"a\"\ntype = \"syslog\"\nurl = \"udp://y:514\"\n"),
              HasSubstr("p.toml:5: a second destination named 'a'"));
  EXPECT_THAT(ErrorOf("[outbox]\nmax_events = 0\n"),
              HasSubstr("'max_events' is 0"));
}

TEST(PolicyFileTest, DiscoveryTargetsAndRemediationsAreRead) {
  auto policy = ParsePolicy(R"(
[discover]
quarantine_dir = "/var/lib/leakhound/quarantine"
owner_mail = "%u@corp.test"

[[discover.target]]
name = "finance-share"
paths = ["/srv/finance"]
exclude = ["*.iso"]
schedule = "daily"

[[discover.target]]
name = "homes"
paths = ["/home", "/srv/team"]
schedule = "manual"

[[rule]]
name = "move"
action = "quarantine"
tombstone = "Ask security."
when = { channel = "discover", documents = ["pricing/"] }

[[rule]]
name = "tighten"
action = "restrict"
when = { channels = ["discover"] }

[[rule]]
name = "mail"
action = "quarantine"
)",
                            "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status();
  const DiscoverSettings& d = policy->discover;
  EXPECT_EQ(d.quarantine_dir, "/var/lib/leakhound/quarantine");
  EXPECT_EQ(d.owner_mail, "%u@corp.test");
  ASSERT_EQ(d.targets.size(), 2u);
  EXPECT_EQ(d.targets[0].name, "finance-share");
  EXPECT_EQ(d.targets[0].paths, std::vector<std::string>{"/srv/finance"});
  EXPECT_EQ(d.targets[0].exclude, std::vector<std::string>{"*.iso"});
  EXPECT_EQ(d.targets[1].schedule, "manual");
  ASSERT_EQ(policy->rules.size(), 3u);
  EXPECT_EQ(policy->rules[0].remediation, Remediation::kQuarantine);
  EXPECT_EQ(policy->rules[0].tombstone, "Ask security.");
  EXPECT_EQ(policy->rules[0].when.channels,
            std::vector<std::string>{"discover"});
  EXPECT_EQ(policy->rules[1].remediation, Remediation::kRestrict);
  EXPECT_EQ(policy->rules[1].disposition, Disposition::kLog);
  // A rule not for discovery remediates nothing there.
  EXPECT_EQ(policy->rules[2].remediation, Remediation::kNone);
  EXPECT_EQ(policy->rules[2].disposition, Disposition::kQuarantine);
}

TEST(PolicyFileTest, DiscoveryMistakesAreNamed) {
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\naction = \"restrict\"\n"),
              HasSubstr("p.toml:3: rule 'a': 'restrict' is an action of "
                        "discovery: the rule needs channels = "
                        "[\"discover\"]"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\naction = \"notify-owner\"\n"
                      "when = { channels = [\"discover\", \"mail\"] }\n"),
              HasSubstr("'notify-owner' is for the discover channel alone"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\naction = \"reject\"\n"
                      "when = { channel = \"discover\" }\n"),
              HasSubstr("on the discover channel the action is log, "
                        "notify-owner, restrict or quarantine"));
  EXPECT_THAT(ErrorOf("[[rule]]\nname = \"a\"\n"
                      "when = { channel = \"disk\" }\n"),
              HasSubstr("unknown channel 'disk' (mail, scan, web, discover)"));
  EXPECT_THAT(ErrorOf("[discover]\nquarantine_dir = \"q\"\n"),
              HasSubstr("p.toml:2: [discover] quarantine_dir must be an "
                        "absolute path"));
  EXPECT_THAT(ErrorOf("[discover]\nowner_mail = \"it@corp.test\"\n"),
              HasSubstr("owner_mail needs %u"));
  EXPECT_THAT(ErrorOf("[[discover.target]]\nname = \"a\"\npaths = "
                      "[\"/srv\"]\nschedule = \"often\"\n"),
              HasSubstr("p.toml:4: unknown schedule 'often' (hourly, daily, "
                        "weekly, manual)"));
  EXPECT_THAT(ErrorOf("[[discover.target]]\nname = \"a\"\npaths = "
                      "[\"srv\"]\n"),
              HasSubstr("target 'a': path 'srv' is not absolute"));
  EXPECT_THAT(ErrorOf("[[discover.target]]\nname = \"a\"\npaths = [\"/a\"]\n"
                      "[[discover.target]]\nname = \"a\"\npaths = [\"/b\"]\n"),
              HasSubstr("a second target named 'a'"));
  EXPECT_THAT(ErrorOf("[[discover.target]]\nname = \"a\"\n"),
              HasSubstr("target 'a' needs paths = [...]"));
}

}  // namespace
}  // namespace leakhound
