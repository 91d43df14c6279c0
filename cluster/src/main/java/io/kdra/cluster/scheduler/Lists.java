package io.kdra.cluster.scheduler;

import java.util.List;

/** fabric8 models leave absent lists null. */
final class Lists {

    private Lists() {}

    static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
