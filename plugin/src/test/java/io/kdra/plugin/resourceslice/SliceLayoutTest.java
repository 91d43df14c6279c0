package io.kdra.plugin.resourceslice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SliceLayoutTest {

    @Test
    void moreThan128DevicesAreSplitInOrder() {
        List<Device> devices = Devices.plain(300);

        List<SliceLayout.Content> slices = SliceLayout.of(Pool.ofDevices(devices));

        assertThat(slices).extracting(slice -> slice.devices().size()).containsExactly(128, 128, 44);
        assertThat(slices.stream().flatMap(slice -> slice.devices().stream()).toList()).isEqualTo(devices);
    }

    @Test
    void slicesWithTaintedOrCounterConsumingDevicesHoldAtMost64() {
        List<Device> devices = new ArrayList<>(Devices.plain(100));
        IntStream.range(0, 70).forEach(i -> devices.add(Devices.tainted("tainted-" + i)));

        List<SliceLayout.Content> slices = SliceLayout.of(Pool.ofDevices(devices));

        assertThat(slices).extracting(slice -> slice.devices().size()).containsExactly(100, 64, 6);
    }

    @Test
    void sharedCountersGetSlicesOfTheirOwnWithAtMostEightSets() {
        List<CounterSet> counterSets = IntStream.range(0, 10)
                .mapToObj(i -> Devices.counterSet("set-" + i, "memory")).toList();
        List<Device> devices = IntStream.range(0, 5)
                .mapToObj(i -> Devices.consuming("partition-" + i, "set-" + i, "memory")).toList();

        List<SliceLayout.Content> slices = SliceLayout.of(Pool.of(List.of(new Slice(devices, counterSets))));

        assertThat(slices).extracting(slice -> slice.sharedCounters().size(), slice -> slice.devices().size())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(8, 0),
                        org.assertj.core.groups.Tuple.tuple(2, 0),
                        org.assertj.core.groups.Tuple.tuple(0, 5));
    }

    @Test
    void anEmptyPoolIsOneEmptySlice() {
        assertThat(SliceLayout.of(Pool.of(List.of()))).containsExactly(new SliceLayout.Content(List.of(), List.of()));
    }

    @Test
    void poolsThatTheApiServerCannotCheckAreRejectedNamingThePool() {
        assertThatThrownBy(() -> DriverResources.of("p", Pool.ofDevices(List.of(Devices.device("d"),
                Devices.device("d")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("found duplicate device \"d\" in pool \"p\"");
        assertThatThrownBy(() -> DriverResources.of("p", Pool.of(List.of(
                new Slice(List.of(), List.of(Devices.counterSet("s", "c"))),
                new Slice(List.of(), List.of(Devices.counterSet("s", "c")))))))
                .hasMessage("found duplicate counter set \"s\" in pool \"p\"");
        assertThatThrownBy(() -> DriverResources.of("p", Pool.ofDevices(List.of(
                Devices.consuming("d", "missing", "c")))))
                .hasMessage("pool \"p\": counter set \"missing\" referenced by device \"d\" not found");
        assertThatThrownBy(() -> DriverResources.of("p", Pool.of(List.of(new Slice(
                List.of(Devices.consuming("d", "s", "other")), List.of(Devices.counterSet("s", "c")))))))
                .hasMessage("pool \"p\": counter \"other\" referenced by device \"d\" not found in counter set \"s\"");
        assertThatThrownBy(() -> DriverResources.of("p", new Pool(List.of(),
                new NodeSelectorBuilder().addNewNodeSelectorTerm().endNodeSelectorTerm().build(), true, false, 0)))
                .hasMessage("pool \"p\": only one of nodeSelector, allNodes and perDeviceNodeSelection may be set");
        assertThatThrownBy(() -> new DriverResources(Map.of("", Pool.of(List.of()))))
                .hasMessage("pool name must not be empty");
    }
}
