package io.stockade.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of docs/api.md's "Java client" compiles against this client as it is. */
class DocsExampleTest {

  @TempDir Path dir;

  @Test
  void theJavaClientSectionsExampleCompiles() throws IOException {
    String api = Files.readString(Path.of("../docs/api.md"));
    int section = api.indexOf("\n## Java client\n");
    assertThat(section).as("docs/api.md's Java client section").isPositive();
    int start = api.indexOf("```java\n", section) + "```java\n".length();
    int end = api.indexOf("\n```", start);
    assertThat(api.indexOf("\n## ", section + 1))
        .as("the example in its section")
        .isGreaterThan(end);
    String example = api.substring(start, end);
    Path source = Files.writeString(dir.resolve("OrderService.java"), example);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter messages = new StringWriter();
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    boolean compiled =
        javac
            .getTask(
                messages,
                null,
                null,
                List.of("-classpath", classPath, "-d", dir.toString(), "--release", "17"),
                null,
                javac.getStandardFileManager(null, null, null).getJavaFileObjects(source))
            .call();

    assertThat(compiled).as("javac:%n%s", messages).isTrue();
    assertThat(dir.resolve("OrderService.class")).exists();
  }
}
