package io.stockade.platform.web;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An identifier of the API (skuId, reservationId, userId, replenishmentId): 1 to 64 characters of
 * {@code [A-Za-z0-9._-]}. Checked before any Redis key or SQL is built from it.
 */
@Documented
@Constraint(validatedBy = {})
@NotNull
@Pattern(regexp = Identifier.PATTERN)
@ReportAsSingleViolation
@Target({
  ElementType.FIELD,
  ElementType.PARAMETER,
  ElementType.RECORD_COMPONENT,
  ElementType.TYPE_USE
})
@Retention(RetentionPolicy.RUNTIME)
public @interface Identifier {

  String PATTERN = "[A-Za-z0-9._-]{1,64}";

  String message() default "must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
