package com.example.color;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.kdra.plugin.ClaimRef;
import io.kdra.plugin.DraPlugin;
import io.kdra.plugin.PrepareResult;
import io.kdra.plugin.PreparedDevice;
import io.kdra.plugin.UnprepareResult;
import io.kdra.plugin.cdi.CdiDevice;
import io.kdra.plugin.cdi.CdiSpec;
import io.kdra.plugin.cdi.ContainerEdits;
import io.kdra.plugin.cdi.FileOperations;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A small DRA driver: each node has devices {@code device-00} ... that give a container the variable
 * {@code COLOR=<device>}. At start it writes one CDI spec with every device; preparing a claim hands the kubelet the
 * CDI IDs of its allocated devices, unpreparing has nothing to undo.
 */
public final class ColorDriver implements DraPlugin {

    private final String driverName;
    private final CdiSpec cdiSpec;

    public ColorDriver(String driverName, FileOperations cdiFiles, int devices) throws IOException {
        this.driverName = driverName;
        List<CdiDevice> cdiDevices = new ArrayList<>();
        for (int i = 0; i < devices; i++) {
            String device = String.format("device-%02d", i);
            cdiDevices.add(new CdiDevice(device, ContainerEdits.ofEnv(List.of("COLOR=" + device))));
        }
        this.cdiSpec = CdiSpec.of("0.6.0", driverName + "/color", cdiDevices);
        cdiFiles.write(driverName + ".json", cdiSpec.toJson());
    }

    @Override
    public Map<String, PrepareResult> prepareResourceClaims(List<ResourceClaim> claims) {
        Map<String, PrepareResult> results = new HashMap<>();
        for (ResourceClaim claim : claims) {
            List<PreparedDevice> devices = new ArrayList<>();
            for (DeviceRequestAllocationResult result : claim.getStatus().getAllocation().getDevices().getResults()) {
                if (result.getDriver().equals(driverName)) {
                    devices.add(new PreparedDevice(List.of(result.getRequest()), result.getPool(), result.getDevice(),
                            List.of(cdiSpec.deviceId(result.getDevice()).toString())));
                }
            }
            results.put(claim.getMetadata().getUid(), PrepareResult.prepared(devices));
        }
        return results;
    }

    @Override
    public Map<String, UnprepareResult> unprepareResourceClaims(List<ClaimRef> claims) {
        Map<String, UnprepareResult> results = new HashMap<>();
        claims.forEach(claim -> results.put(claim.uid(), UnprepareResult.unprepared()));
        return results;
    }
}
