package io.kdra.e2e;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;
import org.junit.platform.suite.api.SuiteDisplayName;

/** Runs the specs (main code of this module, so that {@code kdra e2e} can run them from the jar) in the build. */
@Suite
@SuiteDisplayName("upstream DRA e2e specs on the embedded cluster")
@SelectPackages("io.kdra.e2e")
@IncludeClassNamePatterns(".*Specs")
class UpstreamSuiteTest {
}
