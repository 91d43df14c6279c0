package io.kdra.apiserver.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.schema.ModelTypes;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Runtime;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Kubernetes' protobuf wire form, as kube-apiserver's protobuf serializer writes it: the four bytes {@code k8s\0},
 * then a {@code runtime.Unknown} whose type meta names the apiVersion and kind and whose {@code raw} holds the
 * object's message. Objects are kept as JSON everywhere else, so this class transcodes between the two through the
 * upstream message descriptors ({@link ProtoJson}). Kinds without a descriptor (e.g. resource.k8s.io v1beta1, tables)
 * have no protobuf form, as custom resources have none in kube-apiserver.
 */
public final class KubeProtobuf {

    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    /** A watch: length-prefixed {@code WatchEvent} messages, each object inside an envelope of its own. */
    public static final String WATCH_MEDIA_TYPE = MEDIA_TYPE + ";stream=watch";

    private static final byte[] MAGIC = {'k', '8', 's', 0};
    private static final Descriptor UNKNOWN = Runtime.getDescriptor().findMessageTypeByName("Unknown");
    private static final Descriptor TYPE_META = UNKNOWN.findFieldByName("typeMeta").getMessageType();
    private static final Descriptor WATCH_EVENT = Meta.getDescriptor().findMessageTypeByName("WatchEvent");

    private KubeProtobuf() {}

    /** Reads the descriptors of every kind now rather than when the first protobuf request needs them. */
    public static void loadDescriptors() {
        ProtoKinds.find("v1", "Pod");
    }

    /** @return whether objects of the kind have a protobuf form */
    public static boolean supports(String apiVersion, String kind) {
        return ProtoKinds.find(apiVersion, kind).isPresent();
    }

    /**
     * @param object a JSON object with apiVersion and kind
     * @return the object in an envelope
     * @throws ProtobufException when its kind has no protobuf form or a value does not fit its field
     */
    public static byte[] encode(ObjectNode object) {
        String apiVersion = Json.text(object, "apiVersion");
        String kind = Json.text(object, "kind");
        if (apiVersion == null || kind == null) {
            throw new ProtobufException("the object has no apiVersion or kind");
        }
        Descriptor descriptor = ProtoKinds.find(apiVersion, kind)
                .orElseThrow(() -> new ProtobufException(kind + " in " + apiVersion + " has no protobuf form"));
        DynamicMessage message;
        try {
            message = ProtoJson.toProto(object, descriptor, model(apiVersion, kind));
        } catch (IllegalArgumentException e) {
            throw new ProtobufException(e.getMessage(), e);
        }
        DynamicMessage typeMeta = DynamicMessage.newBuilder(TYPE_META)
                .setField(TYPE_META.findFieldByName("apiVersion"), apiVersion)
                .setField(TYPE_META.findFieldByName("kind"), kind).build();
        DynamicMessage unknown = DynamicMessage.newBuilder(UNKNOWN)
                .setField(UNKNOWN.findFieldByName("typeMeta"), typeMeta)
                .setField(UNKNOWN.findFieldByName("raw"), message.toByteString())
                .setField(UNKNOWN.findFieldByName("contentEncoding"), "")
                .setField(UNKNOWN.findFieldByName("contentType"), "").build();
        byte[] envelope = new byte[MAGIC.length + unknown.getSerializedSize()];
        System.arraycopy(MAGIC, 0, envelope, 0, MAGIC.length);
        System.arraycopy(unknown.toByteArray(), 0, envelope, MAGIC.length, envelope.length - MAGIC.length);
        return envelope;
    }

    /**
     * @return the object the envelope holds, as JSON with its apiVersion and kind
     * @throws ProtobufException naming what is wrong: the prefix, the envelope, the kind, the message
     */
    public static ObjectNode decode(byte[] body) {
        if (body.length == 0) {
            throw new ProtobufException("empty data");
        }
        if (body.length < MAGIC.length || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new ProtobufException("provided data does not appear to be a protobuf message, expected prefix "
                    + Arrays.toString(MAGIC).replace(",", ""));
        }
        if (body.length == MAGIC.length) {
            throw new ProtobufException("empty body");
        }
        DynamicMessage unknown = parse(UNKNOWN, ByteString.copyFrom(body, MAGIC.length, body.length - MAGIC.length));
        Message typeMeta = (Message) unknown.getField(UNKNOWN.findFieldByName("typeMeta"));
        String apiVersion = (String) typeMeta.getField(TYPE_META.findFieldByName("apiVersion"));
        String kind = (String) typeMeta.getField(TYPE_META.findFieldByName("kind"));
        if (kind.isEmpty()) {
            throw new ProtobufException("Object 'Kind' is missing in the protobuf envelope");
        }
        if (apiVersion.isEmpty()) {
            throw new ProtobufException("Object 'apiVersion' is missing in the protobuf envelope");
        }
        Descriptor descriptor = ProtoKinds.find(apiVersion, kind).orElseThrow(() -> new ProtobufException(
                String.format("no kind \"%s\" is registered for version \"%s\"", kind, apiVersion)));
        DynamicMessage message = parse(descriptor, (ByteString) unknown.getField(UNKNOWN.findFieldByName("raw")));
        ObjectNode object = Json.object();
        object.put("kind", kind);
        object.put("apiVersion", apiVersion);
        object.setAll(ProtoJson.toJson(message, model(apiVersion, kind)));
        return object;
    }

    /**
     * @param object the event's object as JSON with apiVersion and kind
     * @return one frame of a protobuf watch: the length of the {@code WatchEvent} message (four bytes, big-endian),
     *     then the message, whose object is an envelope
     */
    public static byte[] watchEvent(String type, ObjectNode object) {
        Descriptor raw = WATCH_EVENT.findFieldByName("object").getMessageType();
        DynamicMessage event = DynamicMessage.newBuilder(WATCH_EVENT)
                .setField(WATCH_EVENT.findFieldByName("type"), type)
                .setField(WATCH_EVENT.findFieldByName("object"), DynamicMessage.newBuilder(raw)
                        .setField(raw.findFieldByName("raw"), ByteString.copyFrom(encode(object))).build())
                .build();
        return ByteBuffer.allocate(4 + event.getSerializedSize()).putInt(event.getSerializedSize())
                .put(event.toByteArray()).array();
    }

    private static DynamicMessage parse(Descriptor descriptor, ByteString bytes) {
        try {
            return DynamicMessage.parseFrom(descriptor, bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new ProtobufException(e.getMessage(), e);
        }
    }

    private static Class<?> model(String apiVersion, String kind) {
        Optional<Class<?>> model = ModelTypes.kindClass(ProtoKinds.group(apiVersion), ProtoKinds.version(apiVersion),
                kind);
        return model.orElse(null);
    }
}
