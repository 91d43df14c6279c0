package io.kdra.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.kdra.apiserver.json.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The managedFields that a pod's life of writes by several managers leaves, over HTTP: which manager keeps which
 * fields, entry by entry. A cheaper way of computing them must leave exactly these entries.
 */
class ManagedFieldsTest extends ServerTestBase {

    @Test
    void eachWriteGivesItsManagerWhatItChangedAndTakesThatFromTheOthers() {
        String pods = "/api/v1/namespaces/" + fixture.namespace() + "/pods";
        List<String> steps = new ArrayList<>();

        steps.add(entries(write("POST", pods + "?fieldManager=alice", "application/json", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"},"finalizers":["x"]},
                 "spec":{"containers":[{"name":"c","image":"i"},{"name":"d","image":"j"}]}}""")));
        steps.add(entries(write("PATCH", pods + "/p/status?fieldManager=bob", "application/strategic-merge-patch+json",
                """
                {"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}""")));
        steps.add(entries(write("PATCH", pods + "/p?fieldManager=carol", "application/merge-patch+json", """
                {"metadata":{"labels":{"a":"2","b":"1"}}}""")));
        steps.add(entries(write("PATCH", pods + "/p/status?fieldManager=bob", "application/strategic-merge-patch+json",
                """
                {"status":{"phase":"Succeeded","conditions":[{"type":"Ready","status":"False"}]}}""")));
        steps.add(entries(write("PATCH", pods + "/p?fieldManager=dave", "application/strategic-merge-patch+json", """
                {"metadata":{"finalizers":["y"]},"spec":{"containers":[{"name":"d","image":"k"}]}}""")));
        ObjectNode current = (ObjectNode) Json.parse(fixture.send("GET", pods + "/p", null, null).body()
                .getBytes(StandardCharsets.UTF_8));
        ((ObjectNode) current.get("metadata")).remove("labels");
        steps.add(entries(write("PUT", pods + "/p?fieldManager=carol", "application/json", Json.string(current))));
        steps.add(entries(write("PATCH", pods + "/p?fieldManager=erin", "application/merge-patch+json", """
                {"metadata":{"finalizers":null}}""")));
        steps.add(entries(write("PATCH", pods + "/p/status?fieldManager=bob", "application/merge-patch+json", """
                {"status":{"phase":"Succeeded"}}""")));

        assertThat(steps).containsExactly(EXPECTED);
    }

    private static final String[] EXPECTED = {
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}},\"f:labels\":"
                    + "{\"f:a\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image"
                    + "\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\""
                    + "f:dnsPolicy\":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGra"
                    + "cePeriodSeconds\":{}},\"f:status\":{\"f:phase\":{},\"f:qosClass\":{}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}},\"f:labels\":"
                    + "{\"f:a\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image"
                    + "\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\""
                    + "f:dnsPolicy\":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGra"
                    + "cePeriodSeconds\":{}},\"f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"opera"
                    + "tion\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:sta"
                    + "tus\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:typ"
                    + "e\":{}}},\"f:phase\":{}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}}},\"f:spec\":{"
                    + "\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}},\"k:{"
                    + "\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\"f:dnsPolicy\":{},\"f:res"
                    + "tartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeconds\":{}},\""
                    + "f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Update\",\"apiVer"
                    + "sion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{"
                    + "\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:phase\":{}}}"
                    + "},{\"manager\":\"carol\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"F"
                    + "ieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:a\":{},\"f:b\":{}}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{}}},\"f:spec\":{"
                    + "\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}},\"k:{"
                    + "\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:image\":{},\"f:name\":{}}},\"f:dnsPolicy\":{},\"f:res"
                    + "tartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeconds\":{}},\""
                    + "f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Update\",\"apiVer"
                    + "sion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{"
                    + "\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:phase\":{}}}"
                    + "},{\"manager\":\"carol\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"F"
                    + "ieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:a\":{},\"f:b\":{}}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},"
                    + "\"f:image\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\"f:name\":{}}},\"f:dnsPolicy\""
                    + ":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeco"
                    + "nds\":{}},\"f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Updat"
                    + "e\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:con"
                    + "ditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:p"
                    + "hase\":{}}}},{\"manager\":\"carol\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fiel"
                    + "dsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\"f:a\":{},\"f:b\":{}}"
                    + "}}},{\"manager\":\"dave\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\""
                    + "FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{},\"v:\\\"y\\\"\":"
                    + "{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:image\":{}}}}"
                    + "}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},"
                    + "\"f:image\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\"f:name\":{}}},\"f:dnsPolicy\""
                    + ":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeco"
                    + "nds\":{}},\"f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Updat"
                    + "e\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:con"
                    + "ditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:p"
                    + "hase\":{}}}},{\"manager\":\"dave\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"field"
                    + "sType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:finalizers\":{\"v:\\\"x\\\"\":{},\"v"
                    + ":\\\"y\\\"\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"d\\\"}\":{\".\":{},\"f:imag"
                    + "e\":{}}}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},"
                    + "\"f:image\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\"f:name\":{}}},\"f:dnsPolicy\""
                    + ":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeco"
                    + "nds\":{}},\"f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Updat"
                    + "e\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:con"
                    + "ditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:p"
                    + "hase\":{}}}},{\"manager\":\"dave\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"field"
                    + "sType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"d\\\"}"
                    + "\":{\".\":{},\"f:image\":{}}}}}}]",
            "[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"Fi"
                    + "eldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"c\\\"}\":{\".\":{},"
                    + "\"f:image\":{},\"f:name\":{}},\"k:{\\\"name\\\":\\\"d\\\"}\":{\"f:name\":{}}},\"f:dnsPolicy\""
                    + ":{},\"f:restartPolicy\":{},\"f:schedulerName\":{},\"f:terminationGracePeriodSeco"
                    + "nds\":{}},\"f:status\":{\"f:qosClass\":{}}}},{\"manager\":\"bob\",\"operation\":\"Updat"
                    + "e\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:con"
                    + "ditions\":{\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":{},\"f:status\":{},\"f:type\":{}}},\"f:p"
                    + "hase\":{}}}},{\"manager\":\"dave\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"field"
                    + "sType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"d\\\"}"
                    + "\":{\".\":{},\"f:image\":{}}}}}}]"
    };

    @Test
    void anEntryAsAClientWroteItIsRewrittenAsTheServerWritesEntries() {
        String configMaps = "/api/v1/namespaces/" + fixture.namespace() + "/configmaps";
        write("POST", configMaps + "?fieldManager=alice", "application/json", """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m"},"data":{"a":"1","b":"2"}}""");
        ObjectNode map = (ObjectNode) write("PATCH", configMaps + "/m?fieldManager=bob",
                "application/merge-patch+json", """
                {"metadata":{"managedFields":[{"fieldsV1":{"f:data":{"f:b":{},"f:a":{}}},"manager":"alice",
                 "operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",
                 "subresource":""}]},"data":{"c":"3"}}""");

        assertThat(entries(map)).isEqualTo("[{\"manager\":\"alice\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
                + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{\"f:a\":{},\"f:b\":{}}}},"
                + "{\"manager\":\"bob\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"fieldsType\":\"FieldsV1\","
                + "\"fieldsV1\":{\"f:data\":{\"f:c\":{}}}}]");
    }

    private static JsonNode write(String method, String path, String contentType, String body) {
        HttpResponse<String> response = fixture.send(method, path, contentType, body);
        assertThat(response.statusCode()).as(response.body()).isBetween(200, 201);
        return Json.parse(response.body().getBytes(StandardCharsets.UTF_8));
    }

    /** @return the object's managedFields without their times, which differ from run to run */
    private static String entries(JsonNode object) {
        JsonNode managed = object.at("/metadata/managedFields").deepCopy();
        for (JsonNode entry : managed) {
            ((ObjectNode) entry).remove("time");
        }
        return Json.string(managed);
    }
}
