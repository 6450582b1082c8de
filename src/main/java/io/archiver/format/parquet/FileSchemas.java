package io.archiver.format.parquet;

import io.archiver.registry.RegisteredSchema;

/**
 * The reader schemas of one typed Parquet file: every record's key and value in the file are read as these (Avro
 * schema resolution), so the file has one column tree however many versions its records were written with. A null
 * schema: that payload is not decoded (its format is not avro), or every record of the file has it null.
 */
record FileSchemas(RegisteredSchema key, RegisteredSchema value) {

    static final FileSchemas NONE = new FileSchemas(null, null);
}
