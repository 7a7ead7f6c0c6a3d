#include "cli/console/discovery_pages.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

DiscoverFinding Finding(const std::string& ref, const std::string& path,
                        const std::string& owner, const std::string& state) {
  DiscoverFinding f;
  f.reference = ref;
  f.incident_id = 7;
  f.target = "share";
  f.path = path;
  f.owner = owner;
  f.group = "staff";
  f.mode = 0644;
  f.exposure = "world-readable";
  f.remediation = "quarantine";
  f.state = state;
  return f;
}

TEST(DiscoveryPagesTest, TheFolderTreeCountsEachFolderFromTheCommonOne) {
  const auto counts =
      FolderCounts({Finding("LH-1", "/srv/share/a/x.txt", "ann", "open"),
                    Finding("LH-2", "/srv/share/a/b/y.txt", "ann", "open"),
                    Finding("LH-3", "/srv/share/c/z.txt", "bob", "open")});
  EXPECT_EQ(counts,
            (std::vector<std::pair<std::string, size_t>>{{"/srv/share", 3},
                                                         {"/srv/share/a", 2},
                                                         {"/srv/share/a/b", 1},
                                                         {"/srv/share/c", 1}}));
  EXPECT_TRUE(FolderCounts({}).empty());
}

TEST(DiscoveryPagesTest, TheFilterTakesTargetFolderOwnerAndState) {
  const DiscoverFinding f = Finding("LH-1", "/srv/a/x.txt", "ann", "open");
  EXPECT_TRUE(InFilter(f, {}));
  EXPECT_TRUE(InFilter(f, {"share", "/srv/a", "ann", "open"}));
  EXPECT_TRUE(InFilter(f, {"", "/srv/a/", "", ""}));
  EXPECT_FALSE(InFilter(f, {"", "/srv/ab", "", ""}));  // not a prefix folder
  EXPECT_FALSE(InFilter(f, {"other", "", "", ""}));
  EXPECT_FALSE(InFilter(f, {"", "", "bob", ""}));
  EXPECT_FALSE(InFilter(f, {"", "", "", "closed"}));
}

TEST(DiscoveryPagesTest, PathsAndNamesAreEscapedAndOnlyAnAdminMayRestore) {
  DiscoveryView view;
  view.runs = {{"share", 1000, 3000, 2000, 2000, 2000, 2, 0, 0},
               {"homes", 5000, 0, 9000, 4000, 1200, 0, 0, 0}};
  view.findings = {Finding("LH-1", "/srv/<script>alert(1)</script>.txt",
                           "<b>ann</b>", "quarantined"),
                   Finding("LH-2", "/srv/notes.txt", "bob", "closed")};
  const PageContext admin{"ada", "admin", "tok"};
  const std::string page = DiscoveryPage(admin, view);
  EXPECT_THAT(page, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(page, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(page, Not(HasSubstr("<b>ann</b>")));
  EXPECT_THAT(page, HasSubstr("action=\"/discovery/LH-1/restore\""));
  EXPECT_THAT(page, HasSubstr("name=\"csrf\" value=\"tok\""));
  // A closed finding has nothing to undo.
  EXPECT_THAT(page, Not(HasSubstr("/discovery/LH-2/restore")));
  EXPECT_THAT(page, HasSubstr("Findings (2)"));
  // A run still going shows how far it got.
  EXPECT_THAT(page, HasSubstr("<td class=\"took\">running</td><td>9000</td>"
                              "<td>1200 of 4000</td>"));
  EXPECT_THAT(page, HasSubstr("<a href=\"/incidents/7\">LH-1</a>"));
  const PageContext viewer{"vic", "viewer", "tok"};
  EXPECT_THAT(DiscoveryPage(viewer, view), Not(HasSubstr("/restore")));
  view.filter.owner = "bob";
  EXPECT_THAT(DiscoveryPage(admin, view), HasSubstr("Findings (1)"));
}

}  // namespace
}  // namespace leakhound
