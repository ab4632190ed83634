package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.produce.ProduceResult;

/**
 * Produce response v0: topic blocks of partitions: partition int32, error int16, baseOffset int64,
 * logAppendTimeMs int64, leaderEpoch int32 (the epoch the records were appended in, LOG-4; -1 on error).
 */
public final class ProduceResponseCodec implements MessageCodec<ProduceResponse> {

    public static final ProduceResponseCodec INSTANCE = new ProduceResponseCodec();

    private ProduceResponseCodec() {
    }

    @Override
    public void write(ProduceResponse r, short version, WireWriter out) {
        TopicBlocks.write(r.partitions(), out, (res, o) -> o.int16(res.error().code()).int64(res.baseOffset())
                .int64(res.logAppendTimeMs()).int32(res.leaderEpoch()));
    }

    @Override
    public ProduceResponse read(short version, WireReader in) {
        return new ProduceResponse(TopicBlocks.read(in, "produce response", 4 + 2 + 8 + 8 + 4, (p, i) ->
                new ProduceResult(ErrorCodes.toErrors(i.int16("error")), i.int64("baseOffset"),
                        i.int64("logAppendTimeMs"), i.int32("leaderEpoch"))));
    }
}
