package io.kdra.e2e;

import org.junit.platform.suite.api.ConfigurationParameter;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;
import org.junit.platform.suite.api.SuiteDisplayName;

/**
 * Runs the specs (main code of this module, so that {@code kdra e2e} can run them from the jar) in the build, three at
 * a time as {@code kdra e2e --parallel 3} does: most of a spec's time is waiting for the cluster, and Serial specs
 * still run alone.
 */
@Suite
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.enabled", value = "true")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.mode.default", value = "concurrent")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.mode.classes.default", value = "concurrent")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.config.executor-service", value = "WORKER_THREAD_POOL")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.config.strategy", value = "fixed")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.config.fixed.parallelism", value = "3")
@ConfigurationParameter(key = "junit.jupiter.execution.parallel.config.fixed.max-pool-size", value = "3")
@SuiteDisplayName("upstream DRA e2e specs on the embedded cluster")
@SelectPackages("io.kdra.e2e")
@IncludeClassNamePatterns(".*Specs")
class UpstreamSuiteTest {
}
