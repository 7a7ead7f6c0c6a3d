#include "cli/formats/sensitivity_label.h"

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "cli/formats/extraction.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

constexpr char kConfidential[] = "f42aa342-8706-4288-bd11-ebb85995028c";
constexpr char kHighly[] = "3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162";
constexpr char kSite[] = "72f988bf-86f1-41af-91ab-2d7cd011db47";

TEST(SensitivityLabelTest, LabelIdsAreLowerCaseGuidsWithoutBraces) {
  EXPECT_EQ(NormalizeLabelId("{F42AA342-8706-4288-BD11-EBB85995028C}"),
            kConfidential);
  EXPECT_EQ(NormalizeLabelId(" f42aa342-8706-4288-bd11-ebb85995028c "),
            kConfidential);
  EXPECT_EQ(NormalizeLabelId("Confidential"), "");
  EXPECT_EQ(NormalizeLabelId("f42aa342x8706-4288-bd11-ebb85995028c"), "");
}

TEST(SensitivityLabelTest, CustomPropertiesGiveOneLabelPerGuid) {
  const std::string xml =
      "<?xml version=\"1.0\"?><Properties xmlns=\"http://schemas."
      "openxmlformats.org/officeDocument/2006/custom-properties\" xmlns:vt="
      "\"http://schemas.openxmlformats.org/officeDocument/2006/"
      "docPropsVTypes\"><property fmtid=\"{D5CDD505-2E9C-101B-9397-"
      "08002B2CF9AE}\" pid=\"2\" name=\"MSIP_Label_f42aa342-8706-4288-bd11-"
      "ebb85995028c_Enabled\"><vt:lpwstr>true</vt:lpwstr></property>"
      "<property fmtid=\"{D5CDD505-2E9C-101B-9397-08002B2CF9AE}\" pid=\"3\" "
      "name=\"MSIP_Label_f42aa342-8706-4288-bd11-ebb85995028c_Name\">"
      "<vt:lpwstr>Vertraulich</vt:lpwstr></property><property fmtid=\"{D5CD"
      "D505-2E9C-101B-9397-08002B2CF9AE}\" pid=\"4\" name=\"Department\">"
      "<vt:lpwstr>Finance</vt:lpwstr></property></Properties>";
  auto labels = ReadCustomProperties(xml);
  ASSERT_TRUE(labels.ok()) << labels.status();
  ASSERT_EQ(labels->size(), 1u);
  EXPECT_EQ((*labels)[0].id, kConfidential);
  EXPECT_EQ((*labels)[0].name, "Vertraulich");
  EXPECT_TRUE((*labels)[0].enabled);
}

TEST(SensitivityLabelTest, LabelInfoMarksARemovedLabelDisabled) {
  const std::string xml =
      "<clbl:labelList xmlns:clbl=\"http://schemas.microsoft.com/office/2020/"
      "mipLabelMetadata\"><clbl:label id=\"{F42AA342-8706-4288-BD11-"
      "EBB85995028C}\" enabled=\"1\" method=\"Privileged\" siteId=\"{72F988BF-"
      "86F1-41AF-91AB-2D7CD011DB47}\" contentBits=\"0\" removed=\"0\"/>"
      "<clbl:label id=\"{3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162}\" enabled="
      "\"1\" method=\"Standard\" siteId=\"{72f988bf-86f1-41af-91ab-"
      "2d7cd011db47}\" removed=\"1\"/></clbl:labelList>";
  auto labels = ReadLabelInfo(xml);
  ASSERT_TRUE(labels.ok()) << labels.status();
  ASSERT_EQ(labels->size(), 2u);
  EXPECT_EQ((*labels)[0].id, kConfidential);
  EXPECT_EQ((*labels)[0].method, "Privileged");
  EXPECT_EQ((*labels)[0].site, kSite);
  EXPECT_TRUE((*labels)[0].enabled);
  EXPECT_EQ((*labels)[1].id, kHighly);
  EXPECT_FALSE((*labels)[1].enabled);
}

TEST(SensitivityLabelTest, XmpReadsElementsAndAttributesInAnyNamespace) {
  const std::string elements =
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://"
      "www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about="
      "\"\" xmlns:pdfx=\"http://ns.adobe.com/pdfx/1.3/\"><pdfx:MSIP_Label_"
      "f42aa342-8706-4288-bd11-ebb85995028c_Enabled>True</pdfx:MSIP_Label_"
      "f42aa342-8706-4288-bd11-ebb85995028c_Enabled><pdfx:MSIP_Label_"
      "f42aa342-8706-4288-bd11-ebb85995028c_Name>Confidential</pdfx:MSIP_"
      "Label_f42aa342-8706-4288-bd11-ebb85995028c_Name></rdf:Description>"
      "</rdf:RDF></x:xmpmeta>";
  auto labels = ReadXmpLabels(elements);
  ASSERT_TRUE(labels.ok()) << labels.status();
  ASSERT_EQ(labels->size(), 1u);
  EXPECT_EQ((*labels)[0].name, "Confidential");

  const std::string attributes =
      "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://"
      "www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about="
      "\"\" xmlns:pdfx=\"http://ns.adobe.com/pdfx/1.3/\" pdfx:MSIP_Label_"
      "f42aa342-8706-4288-bd11-ebb85995028c_Enabled=\"false\"/></rdf:RDF>"
      "</x:xmpmeta>";
  labels = ReadXmpLabels(attributes);
  ASSERT_TRUE(labels.ok()) << labels.status();
  ASSERT_EQ(labels->size(), 1u);
  EXPECT_FALSE((*labels)[0].enabled);
}

TEST(SensitivityLabelTest, MsipLabelsHeaderAsOutlookWritesIt) {
  const auto labels = ReadMsipLabelsHeader(
      "MSIP_Label_f42aa342-8706-4288-bd11-ebb85995028c_Enabled=True; "
      "MSIP_Label_f42aa342-8706-4288-bd11-ebb85995028c_SiteId=72f988bf-86f1-"
      "41af-91ab-2d7cd011db47; MSIP_Label_f42aa342-8706-4288-bd11-"
      "ebb85995028c_Owner=ann@example.com; MSIP_Label_f42aa342-8706-4288-"
      "bd11-ebb85995028c_Name=Confidential; MSIP_Label_f42aa342-8706-4288-"
      "bd11-ebb85995028c_Extended_MSFT_Method=Manual; Sensitivity="
      "Confidential");
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].id, kConfidential);
  EXPECT_EQ(labels[0].name, "Confidential");
  EXPECT_EQ(labels[0].site, kSite);
  EXPECT_EQ(labels[0].method, "Manual");
  EXPECT_TRUE(labels[0].enabled);
  EXPECT_TRUE(ReadMsipLabelsHeader("Sensitivity=General; x").empty());
}

TEST(SensitivityLabelTest, MalformedXmlIsAnError) {
  EXPECT_FALSE(ReadCustomProperties("<Properties><property").ok());
  EXPECT_FALSE(ReadLabelInfo("<labelList>").ok());
}

// The labels of the file's own part of fixture `name`.
std::vector<SensitivityLabel> FileLabels(const std::string& name) {
  auto extraction =
      ExtractBytes(name, SlurpFixture("labels/" + name), ExtractionLimits());
  EXPECT_TRUE(extraction.ok()) << name << ": " << extraction.status();
  if (!extraction.ok() || extraction->parts.empty()) return {};
  EXPECT_EQ(extraction->parts[0].name, "") << name;
  return extraction->parts[0].labels;
}

TEST(SensitivityLabelTest, EveryStorageOfficeWritesIsRead) {
  for (const char* name :
       {"label-custom.docx", "label-custom.pptx", "label-info.docx",
        "label-info.pptx", "label.doc", "label.odt", "label.pdf"}) {
    EXPECT_THAT(FileLabels(name),
                ElementsAre(Field(&SensitivityLabel::id, kConfidential)))
        << name;
  }
  for (const char* name :
       {"label-custom.xlsx", "label-info.xlsx", "label.xls"}) {
    EXPECT_THAT(FileLabels(name),
                ElementsAre(Field(&SensitivityLabel::id, kHighly)))
        << name;
  }
  // The properties name the label; LabelInfo.xml does not.
  EXPECT_EQ(FileLabels("label-custom.docx")[0].name, "Confidential");
  EXPECT_EQ(FileLabels("label.doc")[0].name, "Confidential");
  EXPECT_EQ(FileLabels("label.pdf")[0].name, "Confidential");
  EXPECT_EQ(FileLabels("label-info.docx")[0].name, "");
  EXPECT_EQ(FileLabels("label-info.docx")[0].site, kSite);
  EXPECT_TRUE(FileLabels("unlabelled.docx").empty());
}

TEST(SensitivityLabelTest, AnAttachmentKeepsItsLabelAndTheMailHasItsOwn) {
  const std::string docx = SlurpFixture("labels/label-custom.docx");
  const std::string mail =
      "From: ann@example.com\r\nTo: bob@example.org\r\nSubject: prices\r\n"
      "msip_labels: MSIP_Label_3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162_Enabled="
      "True; MSIP_Label_3c6a5b1e-9d0f-4e2a-8b7c-1d2e3f405162_Name=Highly "
      "Confidential\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; "
      "boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSee the "
      "attachment.\r\n--b\r\nContent-Type: application/vnd.openxmlformats-"
      "officedocument.wordprocessingml.document\r\nContent-Disposition: "
      "attachment; filename=prices.docx\r\nContent-Transfer-Encoding: "
      "base64\r\n\r\n" +
      absl::Base64Escape(docx) + "\r\n--b--\r\n";
  auto extraction = ExtractBytes("m.eml", mail, ExtractionLimits());
  ASSERT_TRUE(extraction.ok()) << extraction.status();
  ASSERT_EQ(extraction->parts.size(), 2u);
  EXPECT_THAT(
      extraction->parts[0].labels,
      ElementsAre(Field(&SensitivityLabel::name, "Highly Confidential")));
  EXPECT_EQ(extraction->parts[1].name, "prices.docx");
  EXPECT_THAT(extraction->parts[1].labels,
              ElementsAre(Field(&SensitivityLabel::id, kConfidential)));
}

}  // namespace
}  // namespace leakhound
