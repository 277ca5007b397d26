import re,sys
HELP = r'''
// probe: a cluster exchange by st.async into each peer's shared memory, completed on the peer's mbarrier
__device__ __forceinline__ void px_init(unsigned long long* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(kevo_shared_addr(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void px_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ void px_expect(unsigned long long* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(kevo_shared_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void px_send(float* slot, unsigned long long* bar, unsigned rank, float v) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :: "r"(kevo_cluster_addr(slot, rank)), "r"(__float_as_uint(v)), "r"(kevo_cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ void px_send2(float2* slot, unsigned long long* bar, unsigned rank, float2 v) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                 :: "r"(kevo_cluster_addr(slot, rank)), "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)),
                    "r"(kevo_cluster_addr(bar, rank)) : "memory");
}
__device__ __forceinline__ void px_wait(unsigned long long* bar) {
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done) : "r"(kevo_shared_addr(bar)) : "memory");
    }
}
__device__ __forceinline__ float px_ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
'''
def sub(s, old, new, count=1):
    assert s.count(old) >= 1, old
    return s.replace(old, new, count)

def variant(src, v):
    s = src
    if v in ('V3', 'V4'):
        s = sub(s, '#include "kevo.h"\n', '#include "kevo.h"\n' + HELP)
    if 'grad_cluster_rows' in s and 'struct Grad' in s:
        # backward
        a = s.index('__device__ __forceinline__ void grad_cluster_rows')
        head, body = s[:a], s[a:]
        if v == 'V1':
            body = sub(body, 'kevo_cluster_arrive();  // done reading', 'px_arrive_relaxed0();  // done reading')
            head = sub(head, '#include "kevo.h"\n', '#include "kevo.h"\n__device__ __forceinline__ void px_arrive_relaxed0() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }\n')
        if v == 'V2':
            body = sub(body, '''        if (t == 0) block_dot = dot;
        kevo_cluster_sync();''', '''        if (t == 0) { block_dot = dot; asm volatile("fence.acq_rel.cluster;" ::: "memory"); }
        asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
        kevo_cluster_wait();''')
            body = sub(body, 'kevo_cluster_arrive();  // done reading', 'asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");  // done reading')
        if v in ('V3', 'V4'):
            body = sub(body, '''    __shared__ float block_dot;
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();''', '''    __shared__ float peer_dot[16];
    __shared__ unsigned long long dot_bar;
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    if (size > 1) {
        if (threadIdx.x == 0) px_init(&dot_bar);
        px_arrive_relaxed();
    }''')
            body = sub(body, '''        if (t == 0) block_dot = dot;
        kevo_cluster_sync();
        dot = warp_reduce<32>((t & 31) < (int)size ? kevo_cluster_ld_f32(&block_dot, t & 31) : 0.0f, SumOp());
        kevo_cluster_arrive();  // done reading the peers' shared memory''', '''        kevo_cluster_wait();  // every block's barrier is initialized
        if (t == 0) px_expect(&dot_bar, size * 4);
        if (t < (int)size) px_send(&peer_dot[rank], &dot_bar, t, dot);
        px_wait(&dot_bar);
        dot = warp_reduce<32>((t & 31) < (int)size ? peer_dot[t & 31] : 0.0f, SumOp());''')
            body = sub(body, '    if (size > 1) kevo_cluster_wait();  // peers may still be reading this block\'s sum\n', '')
        if v == 'V4':
            head = sub(head, 'return dy - Num<EXP>::exp_from(y, 0.0f) * dot;', 'return dy - px_ex2(y * KEVO_LOG2E) * dot;')
        return head + body
    # forward cluster kernel (cross_entropy)
    if v == 'V3':
        s = sub(s, '''    __shared__ float2 block_stat;
''', '''    __shared__ float2 peer_stat[16];
    __shared__ unsigned long long stat_bar;
''')
        s = sub(s, '''    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
''', '''    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    if (size > 1) {
        if (threadIdx.x == 0) px_init(&stat_bar);
        px_arrive_relaxed();
    }
''')
        s = sub(s, '''        if (t == 0) block_stat = make_float2(row.m, row.s);
        kevo_cluster_sync();
        const float2 q = (t & 31) < (int)size ? kevo_cluster_ld_f2(&block_stat, t & 31) : make_float2(NEG, 0.0f);''', '''        kevo_cluster_wait();  // every block's barrier is initialized
        if (t == 0) px_expect(&stat_bar, size * 8);
        if (t < (int)size) px_send2(&peer_stat[rank], &stat_bar, t, make_float2(row.m, row.s));
        px_wait(&stat_bar);
        const float2 q = (t & 31) < (int)size ? peer_stat[t & 31] : make_float2(NEG, 0.0f);''')
        s = re.sub(r"\n        kevo_cluster_arrive\(\);  // done reading the peers' shared memory", "", s, count=1)
        s = sub(s, "    if (size > 1) kevo_cluster_wait();  // peers may still be reading this block's pair\n", "")
    return s

src = open(sys.argv[1]).read()
open(sys.argv[3], 'w').write(variant(src, sys.argv[2]))
