#include "cli/console/override_pages.h"

#include <gtest/gtest.h>

#include "cli/console/console_pages.h"
#include "cli/console/fleet_pages.h"

namespace leakhound {
namespace {

OverrideView Hostile() {
  OverrideView v;
  v.reference = "LH-ABCDEFGHJK";
  v.subject = "<script>alert('subject')</script>";
  v.recipients = {"\"><img src=x onerror=alert(1)>@evil.test", "b@x.test"};
  v.rule = "<b>outside</b>";
  v.rule_text = "Confidential text & <more>";
  v.time_ms = 1795564800000;
  v.until_ms = 1795564800000 + 3'600'000;
  v.min_chars = 25;
  return v;
}

TEST(OverridePagesTest, TheFormEscapesWhatTheSenderWroteAndCarriesItsToken) {
  const std::string page = OverrideFormPage(Hostile(), "tok123", "sam<x>", "");
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>outside"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("Confidential text &amp; &lt;more&gt;"),
            std::string::npos);
  EXPECT_NE(page.find("name=\"csrf\" value=\"tok123\""), std::string::npos);
  EXPECT_NE(page.find("minlength=\"25\""), std::string::npos);
  EXPECT_NE(page.find("action=\"/override/LH-ABCDEFGHJK/justify\""),
            std::string::npos);
  EXPECT_NE(page.find("sam&lt;x&gt;"), std::string::npos);
}

TEST(OverridePagesTest, BeforeLoginNothingOfTheMessageIsShown) {
  const std::string page = OverrideLoginPage(
      "LH-ABCDEFGHJK", "tok", OverrideLoginOptions{true, true}, "", "");
  EXPECT_NE(page.find("LH-ABCDEFGHJK"), std::string::npos);
  EXPECT_NE(page.find("/override/LH-ABCDEFGHJK/login"), std::string::npos);
  EXPECT_NE(page.find("/override/LH-ABCDEFGHJK/link"), std::string::npos);
  // The page is built from the reference alone: no subject or recipient
  // can reach it.
  const std::string neither = OverrideLoginPage(
      "LH-ABCDEFGHJK", "tok", OverrideLoginOptions{false, false}, "", "");
  EXPECT_EQ(neither.find("<form"), std::string::npos);
  EXPECT_NE(neither.find("Ask your security team"), std::string::npos);
}

TEST(OverridePagesTest,
     TheIncidentPageShowsTheOverrideAndRevokeOnlyWhilePending) {
  Incident i;
  i.id = 7;
  i.source = "milter";
  i.kind = "leak";
  i.action = "quarantine";
  i.mail_state = "held";
  i.override_offer.kind = "justify";
  i.override_offer.rule = "outside";
  i.override_offer.until_ms = 1795564800000;
  const PageContext reviewer{"rita", "reviewer", "csrf1"};
  const PageContext viewer{"vic", "viewer", "csrf2"};
  EXPECT_NE(IncidentPage(reviewer, i, {}, "", {}).find("/revoke-override"),
            std::string::npos);
  EXPECT_EQ(IncidentPage(viewer, i, {}, "", {}).find("/revoke-override"),
            std::string::npos);
  i.override_offer.state = "used";
  i.override_offer.used_by = "sam@corp.test (directory login sam)";
  i.override_offer.text = "<script>why</script>";
  const std::string used = IncidentPage(reviewer, i, {}, "", {});
  EXPECT_EQ(used.find("/revoke-override"), std::string::npos);
  EXPECT_NE(used.find("&lt;script&gt;why"), std::string::npos);
  EXPECT_NE(used.find("sam@corp.test (directory login sam)"),
            std::string::npos);
}

}  // namespace
}  // namespace leakhound
