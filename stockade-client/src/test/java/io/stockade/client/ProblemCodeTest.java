package io.stockade.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The client's codes are those docs/api.md catalogues. */
class ProblemCodeTest {

  /** A status followed by a code, as the endpoint table and the prose write them. */
  private static final Pattern STATUS_AND_CODE =
      Pattern.compile("\\b[45]\\d\\d `([a-z]+(?:-[a-z]+)*)`");

  @Test
  void knowsEveryCodeDocsApiMdNamesWithItsStatus() throws IOException {
    Matcher found = STATUS_AND_CODE.matcher(Files.readString(Path.of("../docs/api.md")));
    Set<String> documented = new TreeSet<>();
    while (found.find()) {
      documented.add(found.group(1));
    }
    Set<String> known =
        Arrays.stream(ProblemCode.values())
            .map(ProblemCode::text)
            .filter(Objects::nonNull)
            .collect(Collectors.toCollection(TreeSet::new));

    assertThat(documented).as("codes in docs/api.md").hasSizeGreaterThan(20);
    assertThat(known).containsAll(documented);
    assertThat(documented).containsAll(known);
  }

  @Test
  void readsAnUnknownCodeAsOther() {
    assertThat(ProblemCode.of("insufficient-stock")).isEqualTo(ProblemCode.INSUFFICIENT_STOCK);
    assertThat(ProblemCode.of("a-code-of-tomorrow")).isEqualTo(ProblemCode.OTHER);
    assertThat(ProblemCode.of(null)).isEqualTo(ProblemCode.OTHER);
  }
}
