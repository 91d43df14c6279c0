package io.kdra.bench.scheduling;

/** SchedulingThroughput as scheduler_perf reports it, in pods/s, with the number of 1-second samples it is made of. */
public record Throughput(double average, double perc50, double perc90, double perc95, double perc99, int samples) {}
