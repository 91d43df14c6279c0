package io.kdra.apiserver.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The field errors of Workload and PodGroup validation, each naming its field. */
class SchedulingValidatorsTest {

    private static final String WORKLOAD = """
            {"spec":{"podGroupTemplates":[{"name":"group","schedulingPolicy":{"gang":{"minCount":2}},
             "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]}]}}""";
    private static final String POD_GROUP = """
            {"spec":{"workloadRef":{"workloadName":"w","templateName":"group"},"schedulingPolicy":{"gang":{"minCount":2}},
             "resourceClaims":[{"name":"gpu","resourceClaimName":"c"}]}}""";

    private static ObjectNode json(String text) {
        return (ObjectNode) Json.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> describe(List<FieldError> errors) {
        return errors.stream().map(error -> error.type() + " " + error.field() + ": " + error.detail()).toList();
    }

    @Test
    void aValidWorkloadAndPodGroupPass() {
        assertThat(new WorkloadValidator().validateCreate(json(WORKLOAD))).isEmpty();
        assertThat(new PodGroupValidator().validateCreate(json(POD_GROUP))).isEmpty();
    }

    @Test
    void workloadTemplatesNeedUniqueNamesAndAPolicy() {
        ObjectNode workload = json("""
                {"spec":{"podGroupTemplates":[{"name":"a","schedulingPolicy":{}},
                 {"name":"a","schedulingPolicy":{"basic":{},"gang":{"minCount":0}}}]}}""");
        assertThat(describe(new WorkloadValidator().validateCreate(workload))).containsExactly(
                "INVALID spec.podGroupTemplates[0].schedulingPolicy: must specify one of: `basic`, `gang`",
                "DUPLICATE spec.podGroupTemplates[1].name: ",
                "INVALID spec.podGroupTemplates[1].schedulingPolicy: must specify exactly one of: `basic`, `gang`",
                "INVALID spec.podGroupTemplates[1].schedulingPolicy.gang.minCount: must be greater than or equal to 1");
        assertThat(describe(new WorkloadValidator().validateCreate(json("{\"spec\":{}}"))))
                .containsExactly("REQUIRED spec.podGroupTemplates: must have at least one item");
    }

    @Test
    void claimsAreAtMostFourEachWithOneSource() {
        ObjectNode podGroup = json("""
                {"spec":{"schedulingPolicy":{"basic":{}},"resourceClaims":[{"name":"a"},{"name":"b",
                 "resourceClaimName":"c","resourceClaimTemplateName":"t"},{"name":"c","resourceClaimName":"x"},
                 {"name":"d","resourceClaimName":"y"},{"name":"E","resourceClaimName":"z"}]}}""");
        assertThat(describe(new PodGroupValidator().validateCreate(podGroup))).containsExactly(
                "TOO_MANY spec.resourceClaims: must have at most 4 items",
                "INVALID spec.resourceClaims[0]: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                "INVALID spec.resourceClaims[1]: must specify exactly one of: `resourceClaimName`, "
                        + "`resourceClaimTemplateName`",
                "INVALID spec.resourceClaims[4].name: a lowercase RFC 1123 label must consist of lower case "
                        + "alphanumeric characters or '-', and must start and end with an alphanumeric character "
                        + "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }

    @Test
    void onUpdateOnlyTheGangsMinCountMayChange() {
        ObjectNode old = json(WORKLOAD);
        ObjectNode scaled = json(WORKLOAD.replace("\"minCount\":2", "\"minCount\":5"));
        assertThat(new WorkloadValidator().validateUpdate(scaled, old)).isEmpty();

        ObjectNode otherClaim = json(WORKLOAD.replace("\"t\"", "\"u\""));
        assertThat(describe(new WorkloadValidator().validateUpdate(otherClaim, old)))
                .containsExactly("INVALID spec.podGroupTemplates[0]: field is immutable");

        ObjectNode renamed = json(WORKLOAD.replace("\"group\"", "\"other\""));
        assertThat(describe(new WorkloadValidator().validateUpdate(renamed, old)))
                .containsExactly("FORBIDDEN spec.podGroupTemplates: pod group templates may not be added or removed");

        ObjectNode oldGroup = json(POD_GROUP);
        assertThat(new PodGroupValidator().validateUpdate(
                json(POD_GROUP.replace("\"minCount\":2", "\"minCount\":3")), oldGroup)).isEmpty();
        assertThat(describe(new PodGroupValidator().validateUpdate(
                json(POD_GROUP.replace("\"templateName\":\"group\"", "\"templateName\":\"g2\"")), oldGroup)))
                .containsExactly("INVALID spec: field is immutable");
    }

    @Test
    void statusNamesOnlyTheSpecsClaims() {
        ObjectNode podGroup = json(POD_GROUP);
        podGroup.set("status", json("""
                {"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"pg-gpu-abcde"},{"name":"gpu"},
                 {"name":"other","resourceClaimName":"Bad_Name"}]}"""));
        assertThat(describe(new PodGroupValidator().validateStatusUpdate(podGroup, json(POD_GROUP)))).containsExactly(
                "DUPLICATE status.resourceClaimStatuses[1].name: ",
                "INVALID status.resourceClaimStatuses[2].name: must match the name of an entry in "
                        + "`spec.resourceClaims`",
                "INVALID status.resourceClaimStatuses[2].resourceClaimName: a lowercase RFC 1123 subdomain must "
                        + "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                        + "alphanumeric character (e.g. 'example.com', regex used for validation is "
                        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
}
