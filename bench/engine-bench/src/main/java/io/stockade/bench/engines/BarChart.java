package io.stockade.bench.engines;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A PNG of the report: one horizontal bar per engine, its length the median round's throughput,
 * labelled with the figure and the p99 latency; the parameters and machine under the title.
 */
final class BarChart {

  private static final int WIDTH = 1000;
  private static final int LEFT = 190;
  private static final int RIGHT = 40;
  private static final int BAR = 34;
  private static final int GAP = 22;
  private static final Font CAPTION = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
  private static final Color[] COLORS = {
    new Color(0x4e79a7), new Color(0xf28e2b), new Color(0xe15759), new Color(0x59a14f)
  };

  private BarChart() {}

  static void write(Path file, List<EngineResult> results, List<String> captions)
      throws IOException {
    Graphics2D measuring = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
    measuring.setFont(CAPTION);
    List<String> lines = wrap(captions, measuring.getFontMetrics());
    measuring.dispose();
    int top = 52 + 16 * lines.size() + 20;
    int height = top + results.size() * (BAR + GAP) + 20;
    BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
      g.drawString("Flash-sale admission engines: attempts/s (median round)", 20, 30);
      g.setFont(CAPTION);
      for (int i = 0; i < lines.size(); i++) {
        g.drawString(lines.get(i), 20, 52 + 16 * i);
      }
      double max =
          results.stream().mapToDouble(result -> result.median().throughput()).max().orElse(1);
      int span = WIDTH - LEFT - RIGHT;
      for (int i = 0; i < results.size(); i++) {
        RoundResult median = results.get(i).median();
        int y = top + i * (BAR + GAP);
        int length = (int) Math.max(1, Math.round(span * median.throughput() / max));
        g.setColor(COLORS[i % COLORS.length]);
        g.fillRect(LEFT, y, length, BAR);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(results.get(i).name(), 20, y + BAR / 2 + 5);
        g.setFont(CAPTION);
        String label =
            String.format(
                "%,.0f/s   p99 %s   p50 %s",
                median.throughput(), latency(median.p99Micros()), latency(median.p50Micros()));
        int labelWidth = g.getFontMetrics().stringWidth(label);
        boolean inside = labelWidth + 16 < length;
        g.setColor(inside ? Color.WHITE : Color.BLACK);
        g.drawString(label, inside ? LEFT + 8 : LEFT + length + 8, y + BAR / 2 + 5);
      }
      g.setColor(Color.GRAY);
      g.setStroke(new BasicStroke(1));
      int axis = top + results.size() * (BAR + GAP) - GAP / 2;
      g.drawLine(LEFT, top - 8, LEFT, axis);
    } finally {
      g.dispose();
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ImageIO.write(image, "png", file.toFile());
  }

  /** The captions, stripped and broken at spaces into lines that fit the image's width. */
  private static List<String> wrap(List<String> captions, FontMetrics metrics) {
    List<String> lines = new ArrayList<>();
    for (String caption : captions) {
      StringBuilder line = new StringBuilder();
      for (String word : caption.strip().split(" ")) {
        if (line.length() > 0 && metrics.stringWidth(line + " " + word) > WIDTH - 40) {
          lines.add(line.toString());
          line.setLength(0);
          line.append("    ");
        } else if (line.length() > 0) {
          line.append(' ');
        }
        line.append(word);
      }
      lines.add(line.toString());
    }
    return lines;
  }

  private static String latency(double micros) {
    return micros >= 1000
        ? String.format("%,.1f ms", micros / 1000)
        : String.format("%.0f us", micros);
  }
}
