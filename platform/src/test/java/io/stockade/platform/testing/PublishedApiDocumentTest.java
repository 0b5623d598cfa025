package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The published document's form, and what a check that finds a difference says. */
class PublishedApiDocumentTest {

  @Test
  void writesEveryMemberSortedByNameWithoutServers() {
    String text =
        PublishedApiDocument.text(
            StrictJson.read(
                "{\"servers\":[{\"url\":\"http://localhost:40123\"}],\"paths\":{\"/b\":{},"
                    + "\"/a\":{\"get\":{\"tags\":[\"z\",\"y\"],\"summary\":\"s\"}}},"
                    + "\"openapi\":\"3.1.0\"}"));

    assertThat(text)
        .isEqualTo(
            """
            {
              "openapi": "3.1.0",
              "paths": {
                "/a": {
                  "get": {
                    "summary": "s",
                    "tags": [
                      "z",
                      "y"
                    ]
                  }
                },
                "/b": {}
              }
            }
            """);
  }

  @Test
  void namesEveryMemberThatDiffersAndTheCommandThatRewritesTheFile() {
    String committed =
        PublishedApiDocument.text(
            StrictJson.read(
                "{\"paths\":{\"/api/x\":{\"get\":{\"summary\":\"old\",\"tags\":[\"a\"]}}},"
                    + "\"components\":{\"schemas\":{\"Gone\":{\"type\":\"object\"}}}}"));
    String running =
        PublishedApiDocument.text(
            StrictJson.read(
                "{\"paths\":{\"/api/x\":{\"get\":{\"summary\":\"new\",\"tags\":[\"a\",\"b\"]}},"
                    + "\"/api/y\":{\"get\":{}}},\"components\":{\"schemas\":{}}}"));

    String message = PublishedApiDocument.differences("query-side", committed, running);

    assertThat(message)
        .contains("docs/openapi/query-side.json (4 differences; file -> running)")
        .contains("removed components.schemas.Gone")
        .contains("changed paths.\"/api/x\".get.summary: \"old\" -> \"new\"")
        .contains("changed paths.\"/api/x\".get.tags: [\"a\"] -> [\"a\",\"b\"]")
        .contains("added   paths.\"/api/y\": {\"get\":{}}")
        .contains(
            "./mvnw -B -pl query-side -am test -Dtest=OpenApiHttpIntegrationTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dstockade.openapi.write=true");
  }

  @Test
  void saysWhenOnlyTheFormDiffers() {
    String running = PublishedApiDocument.text(StrictJson.read("{\"openapi\":\"3.1.0\"}"));

    assertThat(
            PublishedApiDocument.differences("command-side", "{\"openapi\": \"3.1.0\"}", running))
        .contains("the same document, formatted otherwise")
        .contains("-pl command-side");
  }
}
