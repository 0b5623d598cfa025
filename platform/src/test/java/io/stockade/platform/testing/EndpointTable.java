package io.stockade.platform.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.stockade.platform.openapi.Problem;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;

/**
 * The table of every endpoint in {@code docs/api.md} ("Endpoints") against what a service's
 * controllers declare: each endpoint a controller maps has its row, and every status it declares
 * ({@code @ApiResponse}, {@code @Problem}) is in that row or in the statuses the paragraph above
 * the table gives every endpoint (and every read of the query side). Run by each service's {@code
 * EndpointTableTest} from its module's directory.
 */
public final class EndpointTable {

  private static final Pattern STATUS = Pattern.compile("\\b([1-5]\\d\\d)\\b");
  private static final Pattern ENDPOINT =
      Pattern.compile("`(?:(GET|POST|PUT|PATCH|DELETE) )?(/[^`?\\s]*)[^`]*`");
  private static final String EVERY_READ = "every read of the query side";

  private final String service;
  private final String basePackage;

  /**
   * @param service the service's name in the table's first column ({@code command}, {@code query})
   */
  public EndpointTable(String service, String basePackage) {
    this.service = service;
    this.basePackage = basePackage;
  }

  /** "METHOD path" to the statuses the table documents for it on this service. */
  public Map<String, Set<Integer>> documented() {
    String api = read(Path.of("../docs/api.md"));
    int section = api.indexOf("\n## Endpoints\n");
    int header = api.indexOf("| service | method and path |", section);
    assertThat(section).as("docs/api.md's Endpoints section").isNotNegative();
    assertThat(header).as("its table").isPositive();
    String paragraph = api.substring(section, header);
    int reads = paragraph.indexOf(EVERY_READ);
    assertThat(reads).as("the statuses of every read of the query side").isPositive();
    Set<Integer> everyEndpoint = statuses(paragraph.substring(0, reads));
    Set<Integer> everyRead = statuses(paragraph.substring(reads));
    int end = api.indexOf("\n\n", header);
    Map<String, Set<Integer>> documented = new LinkedHashMap<>();
    for (String row : api.substring(header, end).lines().skip(2).toList()) {
      String[] cells = row.split("\\|");
      String rowService = cells[1].trim();
      if (!rowService.equals(service) && !rowService.equals("both")) {
        continue;
      }
      Matcher endpoint = ENDPOINT.matcher(cells[2]);
      while (endpoint.find()) {
        String method = endpoint.group(1) == null ? "*" : endpoint.group(1);
        Set<Integer> statuses = new TreeSet<>(everyEndpoint);
        statuses.addAll(statuses(cells[4] + " " + cells[5]));
        if (service.equals("query") && method.equals("GET")) {
          statuses.addAll(everyRead);
        }
        documented.merge(
            method + " " + endpoint.group(2),
            statuses,
            (a, b) -> {
              a.addAll(b);
              return a;
            });
      }
    }
    return documented;
  }

  /** "METHOD path" to the statuses the service's controllers declare for it. */
  public Map<String, Set<Integer>> declared() {
    Map<String, Set<Integer>> declared = new LinkedHashMap<>();
    for (JavaClass type :
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(basePackage)) {
      Class<?> controller = type.reflect();
      RequestMapping base =
          AnnotatedElementUtils.findMergedAnnotation(controller, RequestMapping.class);
      for (Method method : controller.getDeclaredMethods()) {
        RequestMapping mapping =
            AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class);
        if (mapping == null) {
          continue;
        }
        Set<Integer> statuses = new TreeSet<>();
        for (ApiResponse response : method.getAnnotationsByType(ApiResponse.class)) {
          statuses.add(Integer.parseInt(response.responseCode()));
        }
        for (Problem problem : method.getAnnotationsByType(Problem.class)) {
          statuses.add(problem.status());
        }
        for (String basePath : paths(base)) {
          for (String path : paths(mapping)) {
            for (RequestMethod verb : mapping.method()) {
              declared.put(verb.name() + " " + basePath + path, statuses);
            }
          }
        }
      }
    }
    return declared;
  }

  /** Every mapped endpoint documented, with every status it declares. */
  public void verify() {
    Map<String, Set<Integer>> documented = documented();
    Map<String, Set<Integer>> declared = declared();
    assertThat(declared).as("the endpoints of %s's controllers", basePackage).isNotEmpty();
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Set<Integer>> endpoint : declared.entrySet()) {
      Set<Integer> row = documented.get(endpoint.getKey());
      if (row == null) {
        missing.add(endpoint.getKey() + ": no row");
        continue;
      }
      Set<Integer> undocumented = new TreeSet<>(endpoint.getValue());
      undocumented.removeAll(row);
      if (!undocumented.isEmpty()) {
        missing.add(endpoint.getKey() + ": " + undocumented);
      }
    }
    assertThat(missing)
        .as("endpoints and statuses the controllers declare that docs/api.md's table lacks")
        .isEmpty();
  }

  private static List<String> paths(RequestMapping mapping) {
    if (mapping == null || mapping.path().length == 0) {
      return List.of("");
    }
    return List.of(mapping.path());
  }

  private static Set<Integer> statuses(String text) {
    Set<Integer> statuses = new TreeSet<>();
    Matcher status = STATUS.matcher(text);
    while (status.find()) {
      statuses.add(Integer.parseInt(status.group(1)));
    }
    return statuses;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
