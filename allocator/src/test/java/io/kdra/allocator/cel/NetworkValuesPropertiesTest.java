package io.kdra.allocator.cel;

import io.kdra.kube.net.IpAddress;
import io.kdra.kube.net.Cidr;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random addresses and prefixes (the same on every run): parsing agrees with the JDK's formatting of the same
 * bytes ({@code InetAddress.getByAddress} never looks a name up), printing is canonical, and prefix containment agrees
 * with integer arithmetic.
 */
class NetworkValuesPropertiesTest {

    private static final long SEED = 20261203L;
    private static final int TRIES = 500;

    static Stream<byte[]> addresses() {
        SplittableRandom random = new SplittableRandom(SEED);
        return IntStream.range(0, TRIES).mapToObj(i -> randomAddress(random));
    }

    static Stream<byte[][]> addressPairs() {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        return IntStream.range(0, TRIES).mapToObj(i -> {
            byte[] first = randomAddress(random);
            byte[] second = random.nextInt(4) == 0 ? randomAddress(random) : nearby(random, first);
            return new byte[][] {first, second, {(byte) random.nextInt(first.length * 8 + 1)},
                    {(byte) random.nextInt(first.length * 8 + 1)}};
        });
    }

    /** IPv4 or IPv6 bytes, IPv6 with runs of zero fields so that :: compression is exercised. */
    private static byte[] randomAddress(SplittableRandom random) {
        byte[] bytes = new byte[random.nextBoolean() ? 4 : 16];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        if (bytes.length == 16) {
            for (int field = 0; field < 8; field++) {
                if (random.nextInt(3) == 0) {
                    bytes[2 * field] = 0;
                    bytes[2 * field + 1] = 0;
                }
            }
            if (bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff) {
                bytes[11] = 0;
            }
        }
        return bytes;
    }

    private static byte[] nearby(SplittableRandom random, byte[] address) {
        byte[] copy = address.clone();
        copy[copy.length - 1 - random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
        return copy;
    }

    @ParameterizedTest
    @MethodSource("addresses")
    void parsesWhatTheJdkPrintsAndPrintsCanonically(byte[] bytes) throws UnknownHostException {
        String jdkText = InetAddress.getByAddress(bytes).getHostAddress();
        IpAddress address = IpLibrary.parse(jdkText);

        assertThat(value(address)).isEqualTo(new BigInteger(1, bytes));
        assertThat(IpLibrary.parse(address.toString())).isEqualTo(address);
        if (bytes.length == 4) {
            assertThat(address.toString()).isEqualTo(jdkText);
        } else {
            assertIsRfc5952(address.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("addressPairs")
    void containmentAgreesWithIntegerArithmetic(byte[][] pair) {
        IpAddress first = IpLibrary.parse(text(pair[0]));
        IpAddress second = IpLibrary.parse(text(pair[1]));
        int firstBits = Byte.toUnsignedInt(pair[2][0]);
        int secondBits = Math.min(Byte.toUnsignedInt(pair[3][0]), second.bitLength());
        Cidr network = Cidr.parse(first + "/" + firstBits);
        Cidr other = Cidr.parse(second + "/" + secondBits);

        boolean sameFamily = first.ipv4() == second.ipv4();
        assertThat(network.contains(second)).isEqualTo(sameFamily
                && start(network).equals(start(new Cidr(second, firstBits))));
        assertThat(network.contains(other)).isEqualTo(sameFamily && firstBits <= secondBits
                && start(network).compareTo(start(other)) <= 0 && end(other).compareTo(end(network)) <= 0);
        assertThat(network.masked().contains(first)).isTrue();
        assertThat(network.contains(network)).isTrue();
        assertThat(Cidr.parse(network.toString())).isEqualTo(network);
    }

    /** Lower case, no leading zeros, and :: replaces the first longest run of two or more zero fields. */
    private static void assertIsRfc5952(String text) {
        assertThat(text).isEqualTo(text.toLowerCase()).doesNotContain(":::").doesNotMatch(".*(^|:)0[0-9a-f].*");
        int compression = text.indexOf("::");
        assertThat(text.indexOf("::", compression + 1)).as(text).isLessThan(0);
        String before = compression < 0 ? text : text.substring(0, compression);
        String after = compression < 0 ? "" : text.substring(compression + 2);
        int fields = fieldCount(before) + fieldCount(after);
        int compressed = compression < 0 ? 0 : 8 - fields;
        assertThat(compressed).as(text).isNotEqualTo(1);
        assertThat(longestZeroRun(before)).as(text).isLessThan(Math.max(compressed, 2));
        assertThat(longestZeroRun(after)).as(text).isLessThanOrEqualTo(Math.max(compressed, 1));
    }

    private static int fieldCount(String fields) {
        return fields.isEmpty() ? 0 : fields.split(":").length;
    }

    private static int longestZeroRun(String fields) {
        int longest = 0;
        int run = 0;
        for (String field : fields.isEmpty() ? new String[0] : fields.split(":")) {
            run = field.equals("0") ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    private static String text(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }

    private static BigInteger value(IpAddress address) {
        BigInteger high = new BigInteger(Long.toUnsignedString(address.high()));
        return high.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(address.low())));
    }

    private static BigInteger start(Cidr cidr) {
        int hostBits = cidr.address().bitLength() - cidr.bits();
        return value(cidr.address()).shiftRight(hostBits).shiftLeft(hostBits);
    }

    private static BigInteger end(Cidr cidr) {
        int hostBits = cidr.address().bitLength() - cidr.bits();
        return start(cidr).add(BigInteger.ONE.shiftLeft(hostBits)).subtract(BigInteger.ONE);
    }
}
