/**
 * JMH benchmarks, one sub-package per subject ({@code grpc}, {@code apiserver}, {@code allocator}). Build with
 * {@code ./mvnw -B -pl bench -am package -DskipTests}, run with {@code java -jar bench/target/kdra-benchmarks.jar}.
 */
package io.kdra.bench;
