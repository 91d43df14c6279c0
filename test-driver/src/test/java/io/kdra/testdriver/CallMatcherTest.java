package io.kdra.testdriver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The call-history conditions on hand-made histories, the cases upstream's matcher tests cover and more. */
class CallMatcherTest {

    private static final String PREPARE = "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources";
    private static final String UNPREPARE = "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources";

    private static final GrpcCall UNPREPARE_IN_PROGRESS = new GrpcCall(UNPREPARE, "request", null, null, false);
    private static final GrpcCall UNPREPARE_SUCCEEDED = new GrpcCall(UNPREPARE, "request", "response", null, true);
    private static final GrpcCall UNPREPARE_FAILED = new GrpcCall(UNPREPARE, "request", null, "boom", true);
    private static final GrpcCall PREPARE_SUCCEEDED = new GrpcCall(PREPARE, "request", "response", null, true);
    private static final GrpcCall PREPARE_FAILED =
            new GrpcCall(PREPARE, "request", null, "prepare resource claims: simulated PrepareResources failure", true);
    private static final GrpcCall PREPARE_IN_PROGRESS = new GrpcCall(PREPARE, "request", null, null, false);
    private static final GrpcCall GET_INFO = new GrpcCall(CallMatcher.GET_INFO, "request", "response", null, true);
    private static final GrpcCall GET_INFO_FAILED = new GrpcCall(CallMatcher.GET_INFO, "request", null, "no", true);
    private static final GrpcCall NOTIFIED =
            new GrpcCall(CallMatcher.NOTIFY_REGISTRATION_STATUS, "request", "response", null, true);
    private static final GrpcCall NOTIFY_FAILED =
            new GrpcCall(CallMatcher.NOTIFY_REGISTRATION_STATUS, "request", null, "no", true);

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("in progress: none", List.of(), CallMatcher.nodeUnprepareResourcesInProgress(), false),
                Arguments.of("in progress: only completed",
                        List.of(UNPREPARE_SUCCEEDED, UNPREPARE_FAILED, GET_INFO),
                        CallMatcher.nodeUnprepareResourcesInProgress(), false),
                Arguments.of("in progress: blocked call", List.of(GET_INFO, UNPREPARE_IN_PROGRESS),
                        CallMatcher.nodeUnprepareResourcesInProgress(), true),
                Arguments.of("prepare in progress", List.of(PREPARE_IN_PROGRESS),
                        CallMatcher.nodePrepareResourcesInProgress(), true),
                Arguments.of("after: none", List.of(), CallMatcher.nodeUnprepareResourcesSucceededAfter(0), false),
                Arguments.of("after: old success only", List.of(UNPREPARE_SUCCEEDED, GET_INFO),
                        CallMatcher.nodeUnprepareResourcesSucceededAfter(1), false),
                Arguments.of("after: new success", List.of(UNPREPARE_SUCCEEDED, GET_INFO, UNPREPARE_SUCCEEDED),
                        CallMatcher.nodeUnprepareResourcesSucceededAfter(1), true),
                Arguments.of("after: first new call", List.of(UNPREPARE_SUCCEEDED, UNPREPARE_SUCCEEDED),
                        CallMatcher.nodeUnprepareResourcesSucceededAfter(1), true),
                Arguments.of("after: new call still failed", List.of(UNPREPARE_SUCCEEDED, UNPREPARE_FAILED),
                        CallMatcher.nodeUnprepareResourcesSucceededAfter(1), false),
                Arguments.of("after: new call in progress", List.of(UNPREPARE_SUCCEEDED, UNPREPARE_IN_PROGRESS),
                        CallMatcher.nodeUnprepareResourcesSucceededAfter(1), false),
                Arguments.of("registered", List.of(GET_INFO, NOTIFIED), CallMatcher.beRegistered(), true),
                Arguments.of("registration failed", List.of(GET_INFO, NOTIFY_FAILED), CallMatcher.beRegistered(),
                        false),
                Arguments.of("notify failed", List.of(NOTIFY_FAILED), CallMatcher.notifyRegistrationStatusFailed(),
                        true),
                Arguments.of("get info failed", List.of(GET_INFO_FAILED), CallMatcher.getInfoFailed(), true),
                Arguments.of("get info succeeded", List.of(GET_INFO), CallMatcher.getInfoFailed(), false),
                Arguments.of("prepare succeeded", List.of(PREPARE_FAILED, PREPARE_SUCCEEDED),
                        CallMatcher.nodePrepareResourcesSucceeded(), true),
                Arguments.of("prepare in progress is no success", List.of(PREPARE_IN_PROGRESS),
                        CallMatcher.nodePrepareResourcesSucceeded(), false),
                Arguments.of("prepare failed", List.of(PREPARE_SUCCEEDED, PREPARE_FAILED),
                        CallMatcher.nodePrepareResourcesFailed(), true),
                Arguments.of("prepare failed with message", List.of(PREPARE_FAILED),
                        CallMatcher.nodePrepareResourcesFailedWith("simulated PrepareResources failure"), true),
                Arguments.of("prepare failed with other message", List.of(PREPARE_FAILED),
                        CallMatcher.nodePrepareResourcesFailedWith("not allocated"), false),
                Arguments.of("unprepare is not prepare", List.of(UNPREPARE_SUCCEEDED),
                        CallMatcher.nodePrepareResourcesSucceeded(), false),
                Arguments.of("unprepare succeeded", List.of(UNPREPARE_SUCCEEDED),
                        CallMatcher.nodeUnprepareResourcesSucceeded(), true),
                Arguments.of("unprepare failed", List.of(UNPREPARE_FAILED), CallMatcher.nodeUnprepareResourcesFailed(),
                        true),
                Arguments.of("unprepare failed with message", List.of(UNPREPARE_FAILED),
                        CallMatcher.nodeUnprepareResourcesFailedWith("boom"), true),
                Arguments.of("called twice", List.of(PREPARE_SUCCEEDED, GET_INFO, PREPARE_IN_PROGRESS),
                        CallMatcher.calledTimes(CallMatcher.NODE_PREPARE_RESOURCES, 2), true),
                Arguments.of("called once, not twice", List.of(PREPARE_SUCCEEDED),
                        CallMatcher.calledTimes(CallMatcher.NODE_PREPARE_RESOURCES, 2), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesAsUpstream(String name, List<GrpcCall> calls, CallMatcher matcher, boolean expected) {
        assertThat(matcher.test(calls)).as(matcher.mismatch(calls)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void mismatchNamesTheExpectationAndEveryCall(String name, List<GrpcCall> calls, CallMatcher matcher,
            boolean expected) {
        String mismatch = matcher.mismatch(calls);
        assertThat(mismatch).startsWith("expected gRPC calls to " + matcher.description() + ", got:");
        assertThat(mismatch.lines().count()).isEqualTo(calls.size() + 1);
    }
}
