#include "cli/policy/policy_reader.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/formats/sensitivity_label.h"
#include "cli/policy/group_file.h"
#include "cli/policy/label_conditions.h"
#include "cli/policy/policy_bounds.h"
#include "shingler/host_name.h"

namespace leakhound {

std::vector<std::pair<uint32_t, std::string>> PolicyReader::errors() const {
  std::vector<std::pair<uint32_t, std::string>> sorted = errors_;
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  return sorted;
}

void PolicyReader::Fail(const toml::source_region& at,
                        const std::string& message) {
  FailAt(static_cast<uint32_t>(at.begin.line), message);
}

void PolicyReader::FailAt(uint32_t line, const std::string& message) {
  errors_.emplace_back(line, absl::StrCat(path_, ":", line, ": ", message));
}

void PolicyReader::FailInFile(uint32_t line,
                              const std::string& located_message) {
  errors_.emplace_back(line, located_message);
}

const toml::source_region& PolicyReader::At(const toml::table& t,
                                            const std::string& key) {
  const toml::node* n = t.get(key);
  return n != nullptr ? n->source() : t.source();
}

void PolicyReader::OnlyKeys(const toml::table& table,
                            std::initializer_list<const char*> known,
                            const std::string& where) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      Fail(key.source(),
           absl::StrCat("unknown key '", name, "' in ", where,
                        " (known: ", absl::StrJoin(known, ", "), ")"));
    }
  }
}

std::optional<std::string> PolicyReader::String(const toml::table& t,
                                                const std::string& key) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return std::nullopt;
  if (!n->is_string()) {
    Fail(n->source(), absl::StrCat("'", key, "' must be a string"));
    return std::nullopt;
  }
  return std::string(*n->value<std::string>());
}

std::optional<bool> PolicyReader::Bool(const toml::table& t,
                                       const std::string& key) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return std::nullopt;
  if (!n->is_boolean()) {
    Fail(n->source(), absl::StrCat("'", key, "' must be true or false"));
    return std::nullopt;
  }
  return *n->value<bool>();
}

std::optional<uint32_t> PolicyReader::Count(const toml::table& t,
                                            const std::string& key) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return std::nullopt;
  const std::optional<int64_t> v = n->value<int64_t>();
  if (!n->is_integer() || !v || *v < 0 || *v > 1000000000) {
    Fail(n->source(),
         absl::StrCat("'", key, "' must be a whole number from 0"));
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

std::optional<double> PolicyReader::Share(const toml::table& t,
                                          const std::string& key) {
  const toml::node* n = t.get(key);
  if (n == nullptr) return std::nullopt;
  const std::optional<double> v = n->value<double>();
  if (!(n->is_floating_point() || n->is_integer()) || !v || *v < 0 || *v > 1) {
    Fail(n->source(),
         absl::StrCat("'", key, "' must be a share from 0 to 1 (0.5 is 50 %)"));
    return std::nullopt;
  }
  return *v;
}

std::vector<std::string> PolicyReader::Strings(const toml::table& t,
                                               const std::string& key) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (n == nullptr) return out;
  const toml::array* a = n->as_array();
  if (a == nullptr) {
    Fail(n->source(), absl::StrCat("'", key, "' must be a list of strings"));
    return out;
  }
  for (const toml::node& item : *a) {
    if (!item.is_string()) {
      Fail(item.source(),
           absl::StrCat("'", key, "' must be a list of strings"));
      return out;
    }
    out.emplace_back(*item.value<std::string>());
  }
  return out;
}

std::optional<Severity> PolicyReader::SeverityAt(const toml::table& t,
                                                 const std::string& key) {
  const std::optional<std::string> s = String(t, key);
  if (!s) return std::nullopt;
  if (std::optional<Severity> v = SeverityNamed(*s)) return v;
  Fail(t.get(key)->source(),
       absl::StrCat("unknown severity '", *s, "' (info, low, medium, high)"));
  return std::nullopt;
}

std::vector<std::string> PolicyReader::Addresses(const toml::table& t,
                                                 const std::string& key) {
  std::vector<std::string> out = Strings(t, key);
  for (std::string& p : out) {
    p = absl::AsciiStrToLower(p);
    const bool group = p.starts_with("group:") && p.size() > 6;
    if (group) {
      groups_used_.emplace(p.substr(6), t.get(key)->source());
      continue;
    }
    if (auto why = AddressPatternError(p)) {
      Fail(t.get(key)->source(), absl::StrCat(*why, " in '", key, "'"));
    }
  }
  return out;
}

std::vector<std::string> PolicyReader::Domains(const toml::table& t,
                                               const std::string& key) {
  std::vector<std::string> out = Strings(t, key);
  for (std::string& d : out) {
    auto host = HostName(d);
    if (!host.ok()) {
      Fail(t.get(key)->source(),
           absl::StrCat("'", key, "': ", host.status().message()));
      continue;
    }
    d = *host;
  }
  return out;
}

PolicyConditions PolicyReader::Conditions(const toml::table& t,
                                          const std::string& where) {
  OnlyKeys(t,
           {"labels_any",
            "labels_all",
            "documents",
            "min_words",
            "min_share",
            "min_documents",
            "channels",
            "channel",
            "senders",
            "recipient_domains",
            "all_recipient_domains",
            "external_recipient",
            "unread",
            "unread_limit",
            "error",
            "records",
            "tables",
            "identifiers",
            "unlabelled",
            "sensitivity",
            "sensitivity_at_least",
            "unlabelled_attachment",
            "label_downgrade",
            "cumulative"},
           where);
  PolicyConditions c;
  SensitivityConditions(t, c);
  if (const toml::node* n = t.get("cumulative")) c.cumulative = Cumulative(*n);
  c.labels_any = Strings(t, "labels_any");
  c.labels_all = Strings(t, "labels_all");
  c.unlabelled = Bool(t, "unlabelled");
  if (c.unlabelled.value_or(false) &&
      (!c.labels_any.empty() || !c.labels_all.empty())) {
    Fail(t.get("unlabelled")->source(),
         "'unlabelled = true' and a label condition can never both hold");
  }
  c.documents = Strings(t, "documents");
  c.min_words = Count(t, "min_words");
  c.min_share = Share(t, "min_share");
  c.min_documents = Count(t, "min_documents");
  c.channels = Strings(t, "channels");
  // `channel = "discover"`: one channel, as docs/discover.md writes it.
  if (auto one = String(t, "channel")) c.channels.push_back(*one);
  for (const std::string& ch : c.channels) {
    if (ch != "mail" && ch != "scan" && ch != "web" && ch != "discover") {
      const toml::node* at = t.get("channels");
      Fail((at != nullptr ? at : t.get("channel"))->source(),
           absl::StrCat("unknown channel '", ch,
                        "' (mail, scan, web, discover)"));
    }
  }
  c.senders = Addresses(t, "senders");
  c.recipient_domains = Domains(t, "recipient_domains");
  c.all_recipient_domains = Domains(t, "all_recipient_domains");
  c.external_recipient = Bool(t, "external_recipient");
  c.unread = Bool(t, "unread");
  c.unread_limit = Bool(t, "unread_limit");
  c.error = Bool(t, "error");
  c.min_records = Count(t, "records");
  c.tables = Strings(t, "tables");
  if (const toml::node* n = t.get("identifiers")) {
    const toml::table* counts = n->as_table();
    if (counts == nullptr) {
      Fail(n->source(),
           "'identifiers' must be a table of minimum counts, "
           "as identifiers = { card = 10 }");
    } else {
      for (const auto& [name, count] : *counts) {
        const std::optional<int64_t> v = count.value<int64_t>();
        if (!count.is_integer() || !v || *v < 1 || *v > 1000000) {
          Fail(count.source(),
               absl::StrCat("identifiers: '", std::string(name.str()),
                            "' must be a whole number from 1"));
          continue;
        }
        c.identifiers.emplace_back(std::string(name.str()),
                                   static_cast<uint32_t>(*v));
      }
    }
  }
  return c;
}

void PolicyReader::SensitivityConditions(const toml::table& t,
                                         PolicyConditions& c) {
  c.sensitivity = Strings(t, "sensitivity");
  c.sensitivity_at_least = String(t, "sensitivity_at_least").value_or("");
  if (t.get("sensitivity_at_least") != nullptr) {
    label_ranks_used_.emplace(c.sensitivity_at_least,
                              t.get("sensitivity_at_least")->source());
  }
  c.unlabelled_attachment = Bool(t, "unlabelled_attachment");
  c.label_downgrade = Bool(t, "label_downgrade");
  if (c.label_downgrade) {
    label_ranks_used_.emplace("", t.get("label_downgrade")->source());
  }
}

std::optional<CumulativeCondition> PolicyReader::Cumulative(
    const toml::node& n) {
  const toml::table* t = n.as_table();
  if (t == nullptr) {
    Fail(n.source(),
         "'cumulative' must be a table, as cumulative = { words = 300, "
         "days = 30 }");
    return std::nullopt;
  }
  OnlyKeys(*t, {"words", "share", "rows", "days", "per"}, "cumulative");
  CumulativeCondition c;
  c.words = Count(*t, "words");
  c.share = Share(*t, "share");
  c.rows = Count(*t, "rows");
  const int thresholds =
      (c.words ? 1 : 0) + (c.share ? 1 : 0) + (c.rows ? 1 : 0);
  if (thresholds != 1) {
    Fail(n.source(), "'cumulative' needs one threshold: words, share or rows");
  }
  if ((c.words && *c.words == 0) || (c.rows && *c.rows == 0) ||
      (c.share && *c.share <= 0)) {
    Fail(n.source(), "'cumulative': a threshold of 0 always holds");
  }
  const std::optional<uint32_t> days = Count(*t, "days");
  if (!days || *days == 0 || *days > 3660) {
    Fail(n.source(), "'cumulative' needs days, from 1 to 3660");
  } else {
    c.days = *days;
  }
  c.per = String(*t, "per").value_or("sender");
  if (c.per != "sender" && c.per != "sender-domain") {
    Fail(At(*t, "per"), absl::StrCat("'cumulative': unknown per '", c.per,
                                     "' (sender, sender-domain)"));
  }
  return c;
}

LabelSettings PolicyReader::Labels(const toml::table& t) {
  LabelSettings s;
  for (const auto& [key, node] : t) {
    const std::string name(key.str());
    if (name == "order") continue;
    const std::string id = NormalizeLabelId(name);
    if (id.empty()) {
      Fail(key.source(),
           absl::StrCat("[labels]: '", name,
                        "' is neither 'order' nor a label id (a GUID, as "
                        "f42aa342-8706-4288-bd11-ebb85995028c)"));
      continue;
    }
    if (!node.is_string() || node.value<std::string>()->empty()) {
      Fail(node.source(),
           absl::StrCat("[labels]: the label '", name, "' needs a name"));
      continue;
    }
    s.names[id] = *node.value<std::string>();
  }
  s.order = Strings(t, "order");
  return s;
}

void PolicyReader::CheckLabelRanks(const Policy& policy) {
  for (const auto& [name, at] : label_ranks_used_) {
    if (name.empty() && policy.sensitivity_labels.order.empty()) {
      Fail(at,
           "'label_downgrade' needs the labels ranked: [labels] order = "
           "[\"Public\", ..., \"Highly Confidential\"]");
    } else if (!name.empty() && !LabelRank(policy.sensitivity_labels, name)) {
      Fail(at, absl::StrCat("'sensitivity_at_least': '", name,
                            "' is not in [labels] order"));
    }
  }
}

}  // namespace leakhound
