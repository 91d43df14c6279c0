package io.kdra.apiserver;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A self-signed certificate for 127.0.0.1 and localhost, generated per start; it is its own CA. */
final class ServerCertificate {

    private final String certificatePem;
    private final String keyPem;

    private ServerCertificate(String certificatePem, String keyPem) {
        this.certificatePem = certificatePem;
        this.keyPem = keyPem;
    }

    static ServerCertificate generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair keys = generator.generateKeyPair();
            X500Name subject = new X500Name("CN=kdra-apiserver");
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofMinutes(5))),
                    Date.from(now.plus(Duration.ofDays(365))), subject, keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, ApiServerConfig.LOOPBACK),
                new GeneralName(GeneralName.dNSName, "localhost")}));
            X509CertificateHolder holder =
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
            String key = "-----BEGIN PRIVATE KEY-----\n"
                    + java.util.Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                            .encodeToString(keys.getPrivate().getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
            return new ServerCertificate(pem(holder), key);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot generate the API server's TLS certificate: " + e.getMessage(), e);
        }
    }

    private static String pem(Object object) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }

    String caPem() {
        return certificatePem;
    }

    PemKeyCertOptions keyCertOptions() {
        return new PemKeyCertOptions().setCertValue(Buffer.buffer(certificatePem)).setKeyValue(Buffer.buffer(keyPem));
    }
}
