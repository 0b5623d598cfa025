package io.stockade.query.reservation;

import io.swagger.v3.oas.models.media.Schema;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI description of the reservation view's members: {@code ReservationView} is a record of
 * the shared API, which carries no annotations, so its schema (generated from the record) is
 * described here.
 */
@Configuration(proxyBeanMethods = false)
class ReservationViewDescription {

  private static final Map<String, String> MEMBERS =
      Map.of(
          "status",
          "RESERVED, CONFIRMED or RELEASED. A reservation confirmed in part is CONFIRMED: the"
              + " units it did not confirm went back (releasedAt, releaseReason NOT_CONFIRMED),"
              + " the reservation was not released. QUEUED while it waits in a sale's pre-queue"
              + " for the draw (createdAt: when it was queued; expiresAt null), then RESERVED"
              + " when the draw admits it (createdAt: the admission) or REFUSED when it refuses"
              + " it (releaseReason: the refusal)",
          "lines",
          "The units reserved",
          "expiresAt",
          "The end of the hold: the latest extension's, else the reservation's; null for an"
              + " admission the record never stored",
          "confirmedAt",
          "When it was confirmed (paid for); null until then",
          "confirmedLines",
          "The units sold: the lines for a confirmation of every unit; for a partial one, each SKU"
              + " with at least one unit sold (a SKU given back whole is absent); null until"
              + " confirmed",
          "releasedAt",
          "When its units went back to available stock: those of a release, or those a partial"
              + " confirmation did not confirm; null when none did",
          "releaseReason",
          "Why they went back: CANCELLED, EXPIRED, NOT_RECORDED (an admission the record never"
              + " stored), or NOT_CONFIRMED (the units a partial confirmation did not confirm);"
              + " null when none did. For a REFUSED reservation, the draw's refusal:"
              + " INSUFFICIENT_STOCK, LIMIT_EXCEEDED, SALE_CLOSED or SALE_PAUSED (releasedAt"
              + " null: it held no units)");

  @Bean
  OpenApiCustomizer reservationViewMembers() {
    return api -> {
      if (api.getComponents() == null || api.getComponents().getSchemas() == null) {
        return;
      }
      Schema<?> view = api.getComponents().getSchemas().get("ReservationView");
      if (view == null || view.getProperties() == null) {
        return;
      }
      MEMBERS.forEach(
          (member, description) -> {
            Schema<?> property = view.getProperties().get(member);
            if (property != null) {
              property.setDescription(description);
            }
          });
    };
  }
}
