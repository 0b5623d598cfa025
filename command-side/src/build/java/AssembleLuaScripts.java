import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.Stream;

/**
 * Assembles the gate's Lua scripts at build time (command-side's generate-resources phase, run by
 * maven-antrun-plugin as a single-file program, before anything is compiled): every {@code *.lua}
 * directly in the source directory is one operation's script, written to the output directory
 * under the same name with each line {@code --#include <path>} replaced by the text of that part
 * (a path relative to the source directory, itself assembled the same way), after one comment line
 * naming it. Redis then loads one plain file per operation, as before; nothing is built from
 * strings at run time.
 *
 * <p>Fails (exit status 1, the build with it) on an include of a missing part, an include cycle, or
 * any other {@code --#} directive.
 *
 * <p>Usage: {@code java AssembleLuaScripts.java <source directory> <output directory>}
 */
public class AssembleLuaScripts {

  static final String INCLUDE = "--#include ";

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: AssembleLuaScripts <source directory> <output directory>");
      System.exit(2);
    }
    Path sources = Path.of(args[0]);
    Path output = Path.of(args[1]);
    try {
      int count = assembleAll(sources, output);
      System.out.println("Assembled " + count + " Lua scripts from " + sources + " into " + output);
    } catch (IllegalStateException e) {
      System.err.println("Lua assembly failed: " + e.getMessage());
      System.exit(1);
    }
  }

  static int assembleAll(Path sources, Path output) throws IOException {
    List<Path> scripts;
    try (Stream<Path> files = Files.list(sources)) {
      scripts =
          files.filter(file -> file.getFileName().toString().endsWith(".lua")).sorted().toList();
    }
    if (scripts.isEmpty()) {
      throw new IllegalStateException("no *.lua scripts in " + sources);
    }
    Files.createDirectories(output);
    for (Path script : scripts) {
      List<String> lines = new ArrayList<>();
      assemble(sources, sources.relativize(script), new ArrayDeque<>(), lines);
      Path target = output.resolve(script.getFileName().toString());
      String text = String.join("\n", lines) + "\n";
      if (!Files.exists(target) || !Files.readString(target).equals(text)) {
        Files.writeString(target, text, StandardCharsets.UTF_8);
      }
    }
    return scripts.size();
  }

  /** Appends the file's lines to {@code out}, its includes replaced by their parts' text. */
  private static void assemble(Path sources, Path file, Deque<Path> including, List<String> out)
      throws IOException {
    Path normal = file.normalize();
    if (including.contains(normal)) {
      List<String> chain = new ArrayList<>();
      including.descendingIterator().forEachRemaining(path -> chain.add(path.toString()));
      chain.add(normal.toString());
      throw new IllegalStateException("include cycle: " + String.join(" -> ", chain));
    }
    Path absolute = sources.resolve(normal);
    if (!Files.isRegularFile(absolute)) {
      throw new IllegalStateException(
          including.peek() + " includes " + normal + ", which is not in " + sources);
    }
    including.push(normal);
    List<String> lines = Files.readAllLines(absolute, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith(INCLUDE)) {
        String part = line.substring(INCLUDE.length()).strip();
        if (part.isEmpty() || part.contains(" ")) {
          throw new IllegalStateException(normal + ":" + (i + 1) + ": malformed " + line);
        }
        Path resolved = Path.of(part);
        out.add("-- Included from " + part + ":");
        assemble(sources, resolved, including, out);
      } else if (line.startsWith("--#")) {
        throw new IllegalStateException(normal + ":" + (i + 1) + ": unknown directive " + line);
      } else {
        out.add(line);
      }
    }
    including.pop();
  }
}
