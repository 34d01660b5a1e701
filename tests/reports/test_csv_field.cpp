// The one CSV field writer (reports/csv_field.hpp) quotes as RFC 4180
// section 2 says: a field holding a comma, a double quote, CR or LF is
// enclosed in double quotes (rule 6), a double quote inside is doubled
// (rule 7); any other field is written as it is.
#include <gtest/gtest.h>

#include "reports/csv_field.hpp"

namespace pipesim {

TEST(CsvField, PlainFieldsAreWrittenAsTheyAre) {
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("gpu0"), "gpu0");
  EXPECT_EQ(csv_field("a b;c\t'd'"), "a b;c\t'd'");
}

TEST(CsvField, CommaQuoteAndLineBreaksAreQuoted) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("two\r\nlines"), "\"two\r\nlines\"");
  EXPECT_EQ(csv_field("cr\ronly"), "\"cr\ronly\"");
}

}  // namespace pipesim
