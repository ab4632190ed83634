package dev.insync.replication.netty.protocol;

/**
 * Produce request v0: acks int16, timeoutMs int32, then topic blocks of partitions: partition int32,
 * records (int32 length, bytes). The record bytes are handed to the leader's append as they came;
 * the log validates them (LOG-5) and a bad batch changes nothing.
 */
public final class ProduceRequestCodec implements MessageCodec<ProduceRequest> {

    public static final ProduceRequestCodec INSTANCE = new ProduceRequestCodec();

    private ProduceRequestCodec() {
    }

    @Override
    public void write(ProduceRequest r, short version, WireWriter out) {
        out.int16(r.acks()).int32(r.timeoutMs());
        TopicBlocks.write(r.partitions(), out, (records, o) -> o.records(records));
    }

    @Override
    public ProduceRequest read(short version, WireReader in) {
        short acks = in.int16("produce acks");
        int timeoutMs = in.int32("produce timeoutMs");
        var partitions = TopicBlocks.read(in, "produce", 4 + 4, (p, i) -> i.records("records"));
        return new ProduceRequest(acks, timeoutMs, partitions);
    }
}
