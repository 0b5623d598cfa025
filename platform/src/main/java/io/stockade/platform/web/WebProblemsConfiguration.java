package io.stockade.platform.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Import;

/** Installs {@link ProblemResponses} in every Stockade web application. */
@AutoConfiguration
@ConditionalOnWebApplication
@Import(ProblemResponses.class)
public class WebProblemsConfiguration {}
