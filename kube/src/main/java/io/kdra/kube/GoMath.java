package io.kdra.kube;

/** Go's {@code math.Pow10}, reproduced so approximate floats match Kubernetes bit for bit. */
final class GoMath {

    private static final double[] POWERS = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    };
    private static final double[] POSITIVE_POWERS_OF_2_POW_32 = {
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    };
    private static final double[] NEGATIVE_POWERS_OF_2_POW_32 = {
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    };

    private GoMath() {
    }

    /** 10^n as Go computes it: the product or quotient of two table entries, infinity above 1e308, 0 below 1e-323. */
    static double pow10(int n) {
        if (n >= 0 && n <= 308) {
            return POSITIVE_POWERS_OF_2_POW_32[n / 32] * POWERS[n % 32];
        }
        if (n < 0 && n >= -323) {
            return NEGATIVE_POWERS_OF_2_POW_32[-n / 32] / POWERS[-n % 32];
        }
        return n > 0 ? Double.POSITIVE_INFINITY : 0;
    }
}
