package io.kdra.e2e;

import io.kdra.framework.run.SuiteRunner;

/** The upstream DRA specs of this module as one suite: what {@code kdra e2e} runs. */
public final class UpstreamSuite {

    /** The name reports give the suite. */
    public static final String NAME = "kdra e2e: upstream DRA specs";

    private UpstreamSuite() {
    }

    /** A runner over every {@code *Specs} class of this package. */
    public static SuiteRunner runner() {
        return new SuiteRunner(UpstreamSuite.class.getPackageName(), ".*Specs");
    }
}
