package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.stockade.platform.openapi.Problem;
import io.stockade.platform.openapi.Problems;
import io.stockade.platform.web.ProblemCodes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The rules that keep one service's problem codes in its catalogue (a class of {@code public static
 * final String} constants, with {@link ProblemCodes} for the codes both services share): no other
 * main source file of the service or the platform writes a catalogued code as a string literal,
 * every code an {@code @Problem} annotation of the service names is catalogued, and every
 * catalogued code is in {@code docs/api.md}. Run by each service's {@code ProblemCatalogueTest}
 * from its module's directory.
 */
public final class ProblemCatalogue {

  private static final Pattern LITERAL = Pattern.compile("\"([a-z]+(?:-[a-z]+)+)\"");

  private final Class<?> catalogue;
  private final String basePackage;

  public ProblemCatalogue(Class<?> catalogue, String basePackage) {
    this.catalogue = catalogue;
    this.basePackage = basePackage;
  }

  /** The codes of the service's catalogue and the shared one. */
  public Set<String> codes() {
    Set<String> codes = new TreeSet<>(constants(catalogue));
    codes.addAll(constants(ProblemCodes.class));
    return codes;
  }

  /** Where a main source file writes a catalogued code itself: "file: code", none expected. */
  public List<String> literalsOutsideTheCatalogues() {
    Set<String> codes = codes();
    List<String> found = new ArrayList<>();
    for (Path root : List.of(Path.of("src/main/java"), Path.of("../platform/src/main/java"))) {
      for (Path file : javaFiles(root)) {
        String name = file.getFileName().toString();
        if (name.equals(catalogue.getSimpleName() + ".java")
            || name.equals(ProblemCodes.class.getSimpleName() + ".java")) {
          continue;
        }
        Matcher literal = LITERAL.matcher(read(file));
        while (literal.find()) {
          if (codes.contains(literal.group(1))) {
            found.add(root.relativize(file) + ": " + literal.group(1));
          }
        }
      }
    }
    return found;
  }

  /** The codes the service's {@code @Problem} annotations name, on classes and methods. */
  public Set<String> annotatedCodes() {
    Set<String> codes = new TreeSet<>();
    for (JavaClass type :
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(basePackage)) {
      Class<?> loaded = type.reflect();
      List<AnnotatedElement> elements = new ArrayList<>(List.of(loaded));
      elements.addAll(Arrays.asList(loaded.getDeclaredMethods()));
      for (AnnotatedElement element : elements) {
        for (Problem problem : element.getAnnotationsByType(Problem.class)) {
          codes.addAll(List.of(problem.codes()));
        }
        Problems problems = element.getAnnotation(Problems.class);
        if (problems != null) {
          Arrays.stream(problems.value()).forEach(p -> codes.addAll(List.of(p.codes())));
        }
      }
    }
    return codes;
  }

  /** The catalogued codes {@code docs/api.md} does not name as {@code `code`}. */
  public Set<String> undocumented() {
    String api = read(Path.of("../docs/api.md"));
    Set<String> missing = new TreeSet<>();
    for (String code : codes()) {
      if (!api.contains("`" + code + "`")) {
        missing.add(code);
      }
    }
    return missing;
  }

  /** All three rules, with what breaks each in the failure. */
  public void verify() {
    assertThat(constants(catalogue)).as("the catalogue's codes").isNotEmpty();
    assertThat(literalsOutsideTheCatalogues())
        .as("codes written as literals instead of the catalogues' constants")
        .isEmpty();
    Set<String> annotated = annotatedCodes();
    assertThat(annotated).as("codes of @Problem annotations").isNotEmpty();
    assertThat(codes()).as("the catalogues").containsAll(annotated);
    assertThat(undocumented()).as("catalogued codes missing from docs/api.md").isEmpty();
  }

  private static Set<String> constants(Class<?> type) {
    Set<String> codes = new TreeSet<>();
    for (Field field : type.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (Modifier.isStatic(modifiers)
          && Modifier.isFinal(modifiers)
          && field.getType() == String.class) {
        try {
          codes.add((String) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return codes;
  }

  private static List<Path> javaFiles(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
