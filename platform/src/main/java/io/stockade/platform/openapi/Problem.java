package io.stockade.platform.openapi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A problem an endpoint answers with: its HTTP status and the codes ({@code type} ends with one)
 * the caller can get with it. The OpenAPI description lists it as an {@code
 * application/problem+json} response; {@code 400 invalid-request} is listed for every endpoint
 * without saying so.
 */
@Documented
@Repeatable(Problems.class)
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface Problem {

  int status();

  String[] codes();
}
