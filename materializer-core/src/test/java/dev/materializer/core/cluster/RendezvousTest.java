package dev.materializer.core.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Rendezvous}: one owner per partition, stable when others leave, spread evenly. */
class RendezvousTest {

    @Test
    void theWeightIsTheFirstEightBytesOfSha256ReadUnsigned() {
        // Computed independently: sha256("a\0p")[0..8] and sha256("instance-1\0tenant-7")[0..8].
        assertThat(Rendezvous.weight("a", "p")).isEqualTo(1484272447879710118L);
        assertThat(Rendezvous.weight("instance-1", "tenant-7")).isEqualTo(428155385188902985L);
    }

    @Test
    void weightsAreComparedUnsigned() {
        // d's weight for tenant-7 is above 2^63: compared signed, b would win.
        assertThat(Long.toUnsignedString(Rendezvous.weight("d", "tenant-7"))).isEqualTo("10471329688261874347");
        assertThat(Rendezvous.owner("tenant-7", List.of("a", "b", "c", "d"))).isEqualTo("d");
    }

    @Test
    void theOwnerDoesNotDependOnTheOrderOfTheLiveSet() {
        assertThat(Rendezvous.owner("tenant-7", List.of("d", "c", "b", "a"))).isEqualTo("d");
    }

    @Test
    void aLoneInstanceOwnsEverything() {
        assertThat(Rendezvous.owner("any", Set.of("solo"))).isEqualTo("solo");
    }

    @Test
    void noLiveInstanceIsRefused() {
        assertThatThrownBy(() -> Rendezvous.owner("p", List.of()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("liveInstances must name at least one instance, was empty");
    }

    @Test
    void aThousandPartitionsSpreadRoughlyEvenlyOverFourInstances() {
        List<String> instances = List.of("node-1", "node-2", "node-3", "node-4");
        Map<String, Integer> counts = new HashMap<>();
        for (int p = 0; p < 1000; p++) {
            counts.merge(Rendezvous.owner("tenant-" + p, instances), 1, Integer::sum);
        }
        System.out.println("1000 partitions over 4 instances: " + new java.util.TreeMap<>(counts));
        assertThat(counts).containsOnlyKeys(instances);
        assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(150, 350));
    }

    @Property(tries = 200)
    void exactlyOneLiveInstanceOwnsAPartition(@ForAll("instances") Set<String> live, @ForAll("partition") String p) {
        String owner = Rendezvous.owner(p, live);

        assertThat(live).contains(owner);
        assertThat(Rendezvous.owner(p, new ArrayList<>(live))).isEqualTo(owner);
    }

    @Property(tries = 200)
    void removingAnInstanceThatDoesNotOwnAPartitionLeavesItsOwner(@ForAll("instances") Set<String> live,
            @ForAll("partition") String p) {
        String owner = Rendezvous.owner(p, live);
        for (String other : live) {
            if (!other.equals(owner)) {
                Set<String> fewer = new TreeSet<>(live);
                fewer.remove(other);
                assertThat(Rendezvous.owner(p, fewer)).isEqualTo(owner);
            }
        }
    }

    @Property(tries = 100)
    void removingAnOwnerMovesOnlyItsPartitions(@ForAll("instances") Set<String> live,
            @ForAll("partitions") List<String> partitions) {
        String leaving = live.iterator().next();
        Set<String> rest = new TreeSet<>(live);
        rest.remove(leaving);
        if (rest.isEmpty()) {
            return;
        }
        for (String p : partitions) {
            String before = Rendezvous.owner(p, live);
            String after = Rendezvous.owner(p, rest);
            if (!before.equals(leaving)) {
                assertThat(after).as("partition %s stays with %s", p, before).isEqualTo(before);
            }
            else {
                assertThat(rest).contains(after);
            }
        }
    }

    @Provide
    Arbitrary<Set<String>> instances() {
        return Arbitraries.strings().withCharRange('a', 'z').numeric().ofMinLength(1).ofMaxLength(12).set()
            .ofMinSize(1).ofMaxSize(8);
    }

    @Provide
    Arbitrary<String> partition() {
        return Arbitraries.strings().ofMinLength(0).ofMaxLength(20);
    }

    @Provide
    Arbitrary<List<String>> partitions() {
        return partition().list().ofMinSize(1).ofMaxSize(50);
    }
}
