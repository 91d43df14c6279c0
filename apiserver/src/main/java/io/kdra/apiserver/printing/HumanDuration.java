package io.kdra.apiserver.printing;

import java.time.Duration;

/** Ages as kubectl shows them ({@code 45s}, {@code 3m20s}, {@code 5h}, {@code 12d}), with apimachinery's rounding. */
public final class HumanDuration {

    private HumanDuration() {}

    public static String of(Duration duration) {
        long seconds = duration.getSeconds();
        if (seconds < -1) {
            return "<invalid>";
        }
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 60 * 2) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            long rest = seconds % 60;
            return rest == 0 ? minutes + "m" : minutes + "m" + rest + "s";
        }
        if (minutes < 60 * 3) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            long rest = minutes % 60;
            return rest == 0 ? hours + "h" : hours + "h" + rest + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            long rest = hours % 24;
            return rest == 0 ? hours / 24 + "d" : hours / 24 + "d" + rest + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long days = (hours / 24) % 365;
            return days == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + days + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
