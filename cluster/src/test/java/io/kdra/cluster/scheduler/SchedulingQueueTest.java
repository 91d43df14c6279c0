package io.kdra.cluster.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.cluster.Timing;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SchedulingQueueTest {

    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final SchedulingQueue queue = new SchedulingQueue(Timing.REAL);

    private SchedulingQueue.Entry add(String key, int priority, long now) {
        SchedulingQueue.Entry entry = queue.newEntry(key, priority);
        queue.activateOrBackoff(entry, now);
        return entry;
    }

    @Test
    void higherPriorityFirstThenFirstCome() {
        add("a", 0, 0);
        add("b", 10, 0);
        add("c", 0, 0);
        assertThat(queue.pop(0).key).isEqualTo("b");
        assertThat(queue.pop(0).key).isEqualTo("a");
        assertThat(queue.pop(0).key).isEqualTo("c");
        assertThat(queue.pop(0)).isNull();
    }

    @Test
    void backoffDoublesFromOneSecondUpToTen() {
        SchedulingQueue.Entry entry = add("a", 0, 0);
        long now = 0;
        for (long expected : new long[] {1, 2, 4, 8, 10, 10}) {
            assertThat(queue.pop(now)).isSameAs(entry);
            queue.backoff(entry, now);
            assertThat(queue.nanosUntilDue(now)).isEqualTo(expected * SECOND);
            assertThat(queue.pop(now + expected * SECOND - 1)).isNull();
            now += expected * SECOND;
        }
        assertThat(queue.pop(now)).isSameAs(entry);
    }

    @Test
    void unschedulablePodsWaitForAnEventOrFiveMinutes() {
        SchedulingQueue.Entry entry = add("a", 0, 0);
        queue.pop(0);
        queue.parkUnschedulable(entry, 0);
        assertThat(queue.pop(Duration.ofMinutes(5).toNanos() - 1)).isNull();
        assertThat(queue.nanosUntilDue(0)).isEqualTo(Duration.ofMinutes(5).toNanos());
        assertThat(queue.pop(Duration.ofMinutes(5).toNanos())).isSameAs(entry);
    }

    @Test
    void movedPodStillBacksOffFromItsLastAttempt() {
        SchedulingQueue.Entry entry = add("a", 0, 0);
        queue.pop(0);
        queue.parkUnschedulable(entry, 0);
        assertThat(queue.unschedulableMatching(e -> true)).containsExactly(entry);
        queue.activateOrBackoff(entry, SECOND / 2);
        assertThat(queue.pop(SECOND / 2)).isNull();
        assertThat(queue.pop(SECOND)).isSameAs(entry);
    }

    @Test
    void claimIndexFollowsTheClaimsAPodUses() {
        SchedulingQueue.Entry entry = add("a", 0, 0);
        queue.pop(0);
        queue.useClaims(entry, Set.of("ns/c1"));
        queue.parkUnschedulable(entry, 0);
        assertThat(queue.unschedulableUsing("ns/c1")).containsExactly(entry);

        queue.useClaims(entry, Set.of("ns/c2"));
        assertThat(queue.unschedulableUsing("ns/c1")).isEmpty();
        assertThat(queue.unschedulableUsing("ns/c2")).containsExactly(entry);

        queue.activateOrBackoff(entry, 0);
        assertThat(queue.unschedulableUsing("ns/c2")).isEmpty();
        queue.remove("a");
        assertThat(queue.get("a")).isNull();
    }
}
