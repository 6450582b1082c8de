package io.archiver.config;

/** Server-side encryption of the objects the job writes to S3 ({@code sink.s3.encryption}). */
public enum S3Encryption implements ConfigValue {
    /** Nothing required: the S3 file system's own settings and the bucket's default encryption apply. */
    DEFAULT(null),
    /** SSE-S3: keys managed by S3 (AES256). */
    SSE_S3("AES256"),
    /** SSE-KMS: a key of AWS KMS ({@code sink.s3.kms-key-id}, else the account's aws/s3 key). */
    SSE_KMS("SSE-KMS");

    private final String s3aAlgorithm;

    S3Encryption(String s3aAlgorithm) {
        this.s3aAlgorithm = s3aAlgorithm;
    }

    /** The value of the S3 file system's {@code encryption.algorithm} setting; null for {@link #DEFAULT}. */
    public String s3aAlgorithm() {
        return s3aAlgorithm;
    }

    @Override
    public String toString() {
        return configName();
    }
}
