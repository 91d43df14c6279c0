package io.kdra.testdriver;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A condition on the gRPC call history of an {@link ExamplePlugin}, with a description for failure messages: the
 * counterpart of the upstream test driver's gomega matchers. Use it with Awaitility or AssertJ:
 *
 * <pre>{@code
 * await().until(driver::grpcCalls, CallMatcher.nodePrepareResourcesSucceeded());
 * assertThat(driver.grpcCalls()).matches(CallMatcher.beRegistered(), CallMatcher.beRegistered().description());
 * }</pre>
 */
public final class CallMatcher implements Predicate<List<? extends GrpcCall>> {

    /** The registration service's NotifyRegistrationStatus. */
    public static final String NOTIFY_REGISTRATION_STATUS = "/pluginregistration.Registration/NotifyRegistrationStatus";
    /** The registration service's GetInfo. */
    public static final String GET_INFO = "/pluginregistration.Registration/GetInfo";
    /** The suffix of NodePrepareResources in every DRA API version. */
    public static final String NODE_PREPARE_RESOURCES = "/NodePrepareResources";
    /** The suffix of NodeUnprepareResources in every DRA API version. */
    public static final String NODE_UNPREPARE_RESOURCES = "/NodeUnprepareResources";

    private final String description;
    private final Predicate<List<? extends GrpcCall>> condition;

    private CallMatcher(String description, Predicate<List<? extends GrpcCall>> condition) {
        this.description = description;
        this.condition = condition;
    }

    /** What the history must contain, for example {@code contain successful NodePrepareResources call}. */
    public String description() {
        return description;
    }

    @Override
    public boolean test(List<? extends GrpcCall> calls) {
        return condition.test(calls);
    }

    /**
     * A failure message: the description and the calls, one per line.
     *
     * @param calls the history that did not match
     */
    public String mismatch(List<? extends GrpcCall> calls) {
        return "expected gRPC calls to " + description + ", got:" + calls.stream()
                .map(call -> "\n  " + call.fullMethod() + (call.inProgress() ? " (in progress)"
                        : call.failed() ? " failed: " + call.error() : " succeeded"))
                .collect(Collectors.joining());
    }

    @Override
    public String toString() {
        return description;
    }

    /** A successful NotifyRegistrationStatus: the kubelet accepted the plugin. */
    public static CallMatcher beRegistered() {
        return succeeded(NOTIFY_REGISTRATION_STATUS, "NotifyRegistrationStatus");
    }

    /** A failed GetInfo. */
    public static CallMatcher getInfoFailed() {
        return failed(GET_INFO, "GetInfo");
    }

    /** A failed NotifyRegistrationStatus. */
    public static CallMatcher notifyRegistrationStatusFailed() {
        return failed(NOTIFY_REGISTRATION_STATUS, "NotifyRegistrationStatus");
    }

    /** A successful NodePrepareResources of any API version. */
    public static CallMatcher nodePrepareResourcesSucceeded() {
        return succeeded(NODE_PREPARE_RESOURCES, "NodePrepareResources");
    }

    /** A failed NodePrepareResources of any API version. */
    public static CallMatcher nodePrepareResourcesFailed() {
        return failed(NODE_PREPARE_RESOURCES, "NodePrepareResources");
    }

    /** A NodePrepareResources that failed with an error containing the text. */
    public static CallMatcher nodePrepareResourcesFailedWith(String message) {
        return failedWith(NODE_PREPARE_RESOURCES, "NodePrepareResources", message);
    }

    /** A successful NodeUnprepareResources of any API version. */
    public static CallMatcher nodeUnprepareResourcesSucceeded() {
        return succeeded(NODE_UNPREPARE_RESOURCES, "NodeUnprepareResources");
    }

    /** A failed NodeUnprepareResources of any API version. */
    public static CallMatcher nodeUnprepareResourcesFailed() {
        return failed(NODE_UNPREPARE_RESOURCES, "NodeUnprepareResources");
    }

    /** A NodeUnprepareResources that failed with an error containing the text. */
    public static CallMatcher nodeUnprepareResourcesFailedWith(String message) {
        return failedWith(NODE_UNPREPARE_RESOURCES, "NodeUnprepareResources", message);
    }

    /** A NodeUnprepareResources that has been received and has not returned yet. */
    public static CallMatcher nodeUnprepareResourcesInProgress() {
        return inProgress(NODE_UNPREPARE_RESOURCES, "NodeUnprepareResources");
    }

    /** A NodePrepareResources that has been received and has not returned yet. */
    public static CallMatcher nodePrepareResourcesInProgress() {
        return inProgress(NODE_PREPARE_RESOURCES, "NodePrepareResources");
    }

    /**
     * A successful NodeUnprepareResources recorded after the first {@code n} calls, for example after a failure mode
     * was lifted.
     */
    public static CallMatcher nodeUnprepareResourcesSucceededAfter(int n) {
        return new CallMatcher("contain successful NodeUnprepareResources call after the first " + n + " calls",
                calls -> calls.stream().skip(n)
                        .anyMatch(call -> call.isMethod(NODE_UNPREPARE_RESOURCES) && call.succeeded()));
    }

    /**
     * Exactly {@code times} calls of methods ending with the suffix, finished or not.
     *
     * @param methodSuffix for example {@link #NODE_PREPARE_RESOURCES}
     */
    public static CallMatcher calledTimes(String methodSuffix, int times) {
        Objects.requireNonNull(methodSuffix, "methodSuffix");
        return new CallMatcher("contain exactly " + times + " " + methodSuffix + " calls",
                calls -> calls.stream().filter(call -> call.isMethod(methodSuffix)).count() == times);
    }

    private static CallMatcher succeeded(String suffix, String method) {
        return any("contain successful " + method + " call", call -> call.isMethod(suffix) && call.succeeded());
    }

    private static CallMatcher failed(String suffix, String method) {
        return any("contain unsuccessful " + method + " call", call -> call.isMethod(suffix) && call.failed());
    }

    private static CallMatcher inProgress(String suffix, String method) {
        return any("contain " + method + " call in progress", call -> call.isMethod(suffix) && call.inProgress());
    }

    private static CallMatcher failedWith(String suffix, String method, String message) {
        Objects.requireNonNull(message, "message");
        return any("contain unsuccessful " + method + " call with error containing \"" + message + "\"",
                call -> call.isMethod(suffix) && call.failed() && call.error().contains(message));
    }

    private static CallMatcher any(String description, Predicate<GrpcCall> call) {
        return new CallMatcher(description, calls -> calls.stream().anyMatch(call));
    }
}
