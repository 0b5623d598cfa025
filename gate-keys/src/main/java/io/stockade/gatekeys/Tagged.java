package io.stockade.gatekeys;

/** The keys of a partition known by its tag alone: see {@link PartitionKeys#of(String)}. */
record Tagged(String tag) implements PartitionKeys {}
