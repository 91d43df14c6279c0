package io.kdra.plugin.transport;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.SelectStrategy;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.util.IntSupplier;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.netty.shaded.io.netty.util.concurrent.SingleThreadEventExecutor;

/**
 * One-thread epoll event loops for gRPC over Unix sockets that poll for the next readiness or task for a short window
 * before they sleep in {@code epoll_wait} (see {@link Polling} for when and why).
 */
public final class PollingEventLoops {

    private PollingEventLoops() {
    }

    /**
     * A group of one daemon event loop thread.
     *
     * @param threadName the thread's name prefix
     */
    public static EventLoopGroup create(String threadName) {
        PollThenSleep strategy = new PollThenSleep();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory(threadName, true), EpollIoHandler.newFactory(0, () -> strategy));
        strategy.loop = (SingleThreadEventExecutor) group.next();
        return group;
    }

    /** Netty asks this each time the loop has run its ready channels and tasks. */
    private static final class PollThenSleep implements SelectStrategy {

        /** Set once the loop exists; tasks submitted while polling do not wake {@code epoll_wait}, so polls look. */
        volatile SingleThreadEventExecutor loop;
        /** Used by the loop thread only. */
        private final PollGate gate = new PollGate();
        private int ready;

        @Override
        public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
            if (hasTasks) {
                return selectNow.get();
            }
            SingleThreadEventExecutor executor = loop;
            if (executor == null || !gate.shouldPoll()) {
                return SelectStrategy.SELECT;
            }
            boolean found = Polling.poll(() -> {
                try {
                    ready = selectNow.get();
                } catch (Exception e) {
                    throw new IllegalStateException("epoll_wait failed", e);
                }
                return ready > 0 || executor.pendingTasks() > 0;
            }, Polling.WINDOW_NANOS);
            gate.polled(found);
            if (found) {
                // ready channels, or 0: run the tasks
                return ready;
            }
            return SelectStrategy.SELECT;
        }
    }
}
