package io.kdra.allocator;

/** A resource pool: the driver and the pool name. Prints as {@code driver/pool}, as upstream. */
record PoolId(String driver, String pool) {

    @Override
    public String toString() {
        return driver + "/" + pool;
    }
}
