package io.kdra.allocator;

import java.math.BigDecimal;

/** How much of one shared counter a device consumes. */
record CounterUse(String counterSet, String counter, BigDecimal amount) {}
