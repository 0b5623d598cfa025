package io.stockade.command.admission.rebuild;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stockade.api.reservation.ReservationExtended;
import io.stockade.api.reservation.ReservationLine;
import io.stockade.api.reservation.StockConfirmed;
import io.stockade.api.reservation.StockReleased;
import io.stockade.api.reservation.StockReserved;
import io.stockade.api.sku.AdjustmentReason;
import io.stockade.api.sku.DrawDecided;
import io.stockade.api.sku.PurchaseLimitChanged;
import io.stockade.api.sku.SalePaused;
import io.stockade.api.sku.SaleScheduled;
import io.stockade.api.sku.SkuRegistered;
import io.stockade.api.sku.StockAdjusted;
import io.stockade.api.sku.StockReplenished;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A gate image written by a checkpoint reads back as it was, field for field. */
class GateImageFormatTest {

  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00.123456789Z");

  @Test
  void anImageReadBackIsWrittenAgainByteForByte() throws IOException {
    GateImage image = new GateImage();
    List.of(
            new SkuRegistered("a", 10, 3),
            new SkuRegistered("b", 5, null),
            new SaleScheduled("a", T0, T0.plusSeconds(3600), 60, "commitment"),
            new DrawDecided("a", T0, "seed", 4, 2),
            new SalePaused("b", "price"),
            new PurchaseLimitChanged("b", 2),
            new StockAdjusted("a", "A-1", -2, AdjustmentReason.DAMAGED, null),
            new StockReplenished("b", "R-1", 4),
            reserved("O-1", "u-1", 7, new ReservationLine("a", 2), new ReservationLine("b", 1)),
            reserved("O-2", "u-2", 8, new ReservationLine("a", 3)),
            reserved("O-3", "u-1", 9, new ReservationLine("b", 1)),
            new ReservationExtended("O-3", "u-1", T0.plusSeconds(3000), T0.plusSeconds(5)),
            new StockConfirmed(
                "O-1", "u-1", List.of(new ReservationLine("a", 1)), T0.plusSeconds(9)),
            new StockReleased(
                "O-1",
                "u-1",
                List.of(new ReservationLine("a", 1), new ReservationLine("b", 1)),
                StockReleased.NOT_CONFIRMED,
                T0.plusSeconds(9)),
            new StockReleased("O-2", "u-2", List.of(), "CANCELLED", T0.plusSeconds(70)))
        .forEach(image::apply);
    byte[] written = write(image);

    GateImage read = new GateImage();
    GateImageFormat.read(new DataInputStream(new ByteArrayInputStream(written)), read);

    assertThat(write(read)).isEqualTo(written);
    assertThat(read.intents.get("O-1").confirmed).containsExactly(new ReservationLine("a", 1));
    assertThat(read.intents.get("O-2").reason).isEqualTo("CANCELLED");
    assertThat(read.intents.get("O-3").expiresAt).isEqualTo(T0.plusSeconds(3000));
    assertThat(read.intents.get("O-3").admittedAt).isEqualTo(T0);
    assertThat(read.skus.get("a").opensAt).isEqualTo(T0.toEpochMilli());
    assertThat(read.skus.get("a").adjustments).containsEntry("A-1", -2L);
    assertThat(read.skus.get("b").paused).isTrue();
    assertThat(read.skus.get("b").closesAt).isNull();
    assertThat(read.sequence).isEqualTo(9);
  }

  @Test
  void anImageReadAtALaterRebuildForgetsWhatEndedBeforeItsRetention() throws IOException {
    GateImage image = new GateImage();
    image.apply(new SkuRegistered("a", 10, null));
    image.apply(reserved("O-old", "u-1", 1, new ReservationLine("a", 1)));
    image.apply(reserved("O-live", "u-2", 2, new ReservationLine("a", 1)));
    image.apply(new StockReleased("O-old", "u-1", List.of(), "CANCELLED", T0.plusSeconds(1)));

    GateImage later = new GateImage(T0.plus(Duration.ofDays(2)), Duration.ofHours(24));
    GateImageFormat.read(new DataInputStream(new ByteArrayInputStream(write(image))), later);

    assertThat(later.intents).containsOnlyKeys("O-live");
    assertThat(later.skus.get("a").available).isEqualTo(9);
  }

  @Test
  void whatIsNotAWholeImageIsRefused() throws IOException {
    GateImage image = new GateImage();
    image.apply(new SkuRegistered("a", 10, null));
    byte[] written = write(image);
    byte[] cut = Arrays.copyOf(written, written.length - 4);
    assertThatThrownBy(
            () ->
                GateImageFormat.read(
                    new DataInputStream(new ByteArrayInputStream(cut)), new GateImage()))
        .isInstanceOf(IOException.class);
    byte[] other = written.clone();
    other[0] ^= 1;
    assertThatThrownBy(
            () ->
                GateImageFormat.read(
                    new DataInputStream(new ByteArrayInputStream(other)), new GateImage()))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Not a gate image");
  }

  private static byte[] write(GateImage image) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      GateImageFormat.write(image, out);
    }
    return bytes.toByteArray();
  }

  private static StockReserved reserved(
      String id, String user, long sequence, ReservationLine... lines) {
    return new StockReserved(id, user, List.of(lines), T0, T0.plusSeconds(900), sequence, 1);
  }
}
