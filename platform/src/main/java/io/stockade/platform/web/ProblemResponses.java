package io.stockade.platform.web;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.context.MessageSourceResolvable;
import org.springframework.context.support.DefaultMessageSourceResolvable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error of the API as {@code application/problem+json} (RFC 9457): the contract's codes for
 * domain outcomes, {@code invalid-request} with an {@code errors} list for bad input, and no stack
 * traces anywhere.
 */
@RestControllerAdvice
public class ProblemResponses extends ResponseEntityExceptionHandler {

  /**
   * Prefix of every problem {@code type}, an identifier rather than a page; the code follows it.
   */
  public static final String TYPE_PREFIX = "https://stockade.io/problems/";

  private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

  /** A field (or parameter) and what is wrong with it. */
  public record FieldProblem(String field, String message) {}

  /** Builds the problem of one code, with the contract's extra members. */
  public static ProblemDetail problem(
      HttpStatusCode status, String code, String title, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setType(URI.create(TYPE_PREFIX + code));
    problem.setTitle(title);
    return problem;
  }

  /** 400 {@code invalid-request} listing every field that is wrong. */
  public static ProblemException invalidRequest(List<FieldProblem> errors) {
    return new ProblemException(
        HttpStatus.BAD_REQUEST,
        ProblemCodes.INVALID_REQUEST,
        "Invalid request",
        "The request is malformed or breaks a rule; nothing was changed.",
        Map.of("errors", List.copyOf(errors)));
  }

  @ExceptionHandler(ProblemException.class)
  ResponseEntity<ProblemDetail> handle(ProblemException exception) {
    return response(exception);
  }

  /**
   * The response a problem is answered with, for a handler to return rather than throw: the same
   * status, headers and body as when it is thrown. On a hot path (a refused reservation) this saves
   * what a thrown exception costs in Spring MVC: the reflective call wraps it in an
   * InvocationTargetException, whose stack trace is filled in, and the exception resolvers look for
   * its handler.
   */
  public static ResponseEntity<ProblemDetail> response(ProblemException exception) {
    ProblemDetail problem =
        problem(exception.status(), exception.code(), exception.title(), exception.getMessage());
    exception.properties().forEach(problem::setProperty);
    return ResponseEntity.status(exception.status()).headers(exception.headers()).body(problem);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ProblemDetail> handleUnexpected(Exception exception) {
    return unexpected(exception);
  }

  /**
   * The catch-all's 500 {@code internal-error}, for an advice that takes a failure it cannot name.
   */
  public static ResponseEntity<ProblemDetail> unexpected(Exception exception) {
    log.error("Unexpected failure", exception);
    ProblemDetail problem =
        problem(
            HttpStatus.INTERNAL_SERVER_ERROR,
            "internal-error",
            "Internal error",
            "The request failed unexpectedly; it may or may not have taken effect. "
                + "Retrying with the same identifiers is safe.");
    return ResponseEntity.internalServerError().body(problem);
  }

  @Override
  protected ResponseEntity<Object> handleMethodArgumentNotValid(
      MethodArgumentNotValidException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    List<FieldProblem> errors = new ArrayList<>();
    for (FieldError error : ex.getBindingResult().getFieldErrors()) {
      errors.add(new FieldProblem(error.getField(), error.getDefaultMessage()));
    }
    ex.getBindingResult()
        .getGlobalErrors()
        .forEach(error -> errors.add(new FieldProblem(error.getObjectName(), message(error))));
    return invalid(errors);
  }

  @Override
  protected ResponseEntity<Object> handleHandlerMethodValidationException(
      HandlerMethodValidationException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    List<FieldProblem> errors = new ArrayList<>();
    ex.getParameterValidationResults()
        .forEach(
            result ->
                result
                    .getResolvableErrors()
                    .forEach(
                        error ->
                            errors.add(
                                new FieldProblem(
                                    result.getMethodParameter().getParameterName(),
                                    message(error)))));
    return invalid(errors);
  }

  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
      if (cause instanceof RequestBodyLimit.TooLarge tooLarge) {
        return new ResponseEntity<>(
            handle(tooLarge.problem()).getBody(), HttpStatus.CONTENT_TOO_LARGE);
      }
    }
    return invalid(
        List.of(new FieldProblem("body", "is missing or is not valid JSON of the expected shape")));
  }

  @Override
  protected ResponseEntity<Object> handleMissingServletRequestParameter(
      MissingServletRequestParameterException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    return invalid(List.of(new FieldProblem(ex.getParameterName(), "is missing")));
  }

  @Override
  protected ResponseEntity<Object> handleTypeMismatch(
      TypeMismatchException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    String type =
        ex.getRequiredType() == null
            ? "of another type"
            : "a " + ex.getRequiredType().getSimpleName();
    return invalid(
        List.of(new FieldProblem(String.valueOf(ex.getPropertyName()), "must be " + type)));
  }

  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception ex, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    ResponseEntity<Object> response =
        super.handleExceptionInternal(ex, body, headers, status, request);
    // Spring's own errors (405, 406, 415, 404 of unknown paths...) get a code as well: their
    // title's. Spring builds their body in the call above, without a type.
    if (response != null
        && response.getBody() instanceof ProblemDetail detail
        && (detail.getType() == null || detail.getType().equals(URI.create("about:blank")))) {
      String title = detail.getTitle() == null ? "error" : detail.getTitle();
      detail.setType(URI.create(TYPE_PREFIX + title.toLowerCase().replaceAll("[^a-z0-9]+", "-")));
    }
    return response;
  }

  private ResponseEntity<Object> invalid(List<FieldProblem> errors) {
    ProblemException exception = invalidRequest(errors);
    return new ResponseEntity<>(handle(exception).getBody(), exception.status());
  }

  private static String message(MessageSourceResolvable error) {
    return error instanceof DefaultMessageSourceResolvable resolvable
            && resolvable.getDefaultMessage() != null
        ? resolvable.getDefaultMessage()
        : String.valueOf(error.getDefaultMessage());
  }
}
