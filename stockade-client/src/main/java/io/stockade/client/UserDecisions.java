package io.stockade.client;

import java.util.List;

/** {@code GET /api/audit/users/{userId}/decisions}: each decision names its SKU. */
public record UserDecisions(
    String userId, List<Decision> decisions, long page, int size, long total) {}
