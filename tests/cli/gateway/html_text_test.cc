#include "cli/gateway/html_text.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(HtmlTextTest, MarkupCharactersAreEscaped) {
  EXPECT_EQ(
      Html("<script>alert('x')</script> & \"q\""),
      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
}

TEST(HtmlTextTest, IllFormedUtf8AndControlCharactersDoNotPassThrough) {
  EXPECT_EQ(Html("a\xFF"
                 "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(Html(std::string("a\0b\x1b[31m", 8)), "ab[31m");
  EXPECT_EQ(Html("line\nnext\ttab"), "line\nnext\ttab");
}

TEST(HtmlTextTest, UrlEncodesAllButUnreserved) {
  EXPECT_EQ(Url("a b&c=d/\"<>"), "a%20b%26c%3Dd%2F%22%3C%3E");
  EXPECT_EQ(Url("Az09-_.~"), "Az09-_.~");
}

}  // namespace
}  // namespace leakhound
