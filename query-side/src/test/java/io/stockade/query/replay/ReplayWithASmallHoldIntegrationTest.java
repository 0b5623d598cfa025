package io.stockade.query.replay;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * {@link ReplayIntegrationTest}'s workload and checks with the reservation fold holding back at
 * most two RESERVED rows and writing every three changes: the reservations that stay RESERVED go
 * out oldest first as others come, those that end go with the next batch, and the models must come
 * out row for row the same.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"stockade.replay.reservation-window=3", "stockade.replay.reservation-hold=2"})
class ReplayWithASmallHoldIntegrationTest extends ReplayIntegrationTest {}
