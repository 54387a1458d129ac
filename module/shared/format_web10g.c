// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * web10g-logger lines (omode=2, ttpb2ascii -f web10g). Kernel rules apply:
 * no allocation, no floating point, small stack frames.
 */
#include "format_common.h"

/*
 * web10g (omode=2): the columns of web10g-logger 2.0.9, the 122 RFC 4898
 * variables in web10g userland's order (docs/compat-formats.md, section 4,
 * "web10g-logger lines"). The list gives both the header and the variable
 * numbers; docs/web10g.md has the mapping, column by column.
 */
#define MAGNET_WEB10G_VARS(X)						\
	X(SegsOut) X(DataSegsOut) X(DataOctetsOut) X(HCDataOctetsOut)	\
	X(SegsRetrans) X(OctetsRetrans) X(SegsIn) X(DataSegsIn)	\
	X(DataOctetsIn) X(HCDataOctetsIn) X(ElapsedSecs)		\
	X(ElapsedMicroSecs) X(StartTimeStamp) X(CurMSS) X(PipeSize)	\
	X(MaxPipeSize) X(SmoothedRTT) X(CurRTO) X(CongSignals)		\
	X(CurCwnd) X(CurSsthresh) X(Timeouts) X(CurRwinSent)		\
	X(MaxRwinSent) X(ZeroRwinSent) X(CurRwinRcvd) X(MaxRwinRcvd)	\
	X(ZeroRwinRcvd) X(SndLimTransRwin) X(SndLimTransCwnd)		\
	X(SndLimTransSnd) X(SndLimTransTSODefer) X(SndLimTimeRwin)	\
	X(SndLimTimeCwnd) X(SndLimTimeSnd) X(SndLimTimeTSODefer)	\
	X(RetranThresh) X(NonRecovDAEpisodes) X(SumOctetsReordered)	\
	X(NonRecovDA) X(SampleRTT) X(RTTVar) X(MaxRTT) X(MinRTT)	\
	X(SumRTT) X(HCSumRTT) X(CountRTT) X(MaxRTO) X(MinRTO) X(IpTtl)	\
	X(IpTosIn) X(IpTosOut) X(PreCongSumCwnd) X(PreCongSumRTT)	\
	X(PostCongSumRTT) X(PostCongCountRTT) X(ECNsignals)		\
	X(DupAckEpisodes) X(RcvRTT) X(DupAcksOut) X(CERcvd) X(ECESent)	\
	X(ActiveOpen) X(MSSSent) X(MSSRcvd) X(WinScaleSent)		\
	X(WinScaleRcvd) X(TimeStamps) X(ECN) X(WillSendSACK)		\
	X(WillUseSACK) X(State) X(Nagle) X(MaxSsCwnd) X(MaxCaCwnd)	\
	X(MaxSsthresh) X(MinSsthresh) X(InRecovery) X(DupAcksIn)	\
	X(SpuriousFrDetected) X(SpuriousRtoDetected) X(SoftErrors)	\
	X(SoftErrorReason) X(SlowStart) X(CongAvoid)			\
	X(OtherReductions) X(CongOverCount) X(FastRetran)		\
	X(SubsequentTimeouts) X(CurTimeoutCount) X(AbruptTimeouts)	\
	X(SACKsRcvd) X(SACKBlocksRcvd) X(SendStall) X(DSACKDups)	\
	X(MaxMSS) X(MinMSS) X(SndInitial) X(RecInitial)		\
	X(CurRetxQueue) X(MaxRetxQueue) X(CurReasmQueue)		\
	X(MaxReasmQueue) X(EarlyRetrans) X(EarlyRetransDelay) X(SndUna)	\
	X(SndNxt) X(SndMax) X(ThruOctetsAcked) X(HCThruOctetsAcked)	\
	X(RcvNxt) X(ThruOctetsReceived) X(HCThruOctetsReceived)	\
	X(CurAppWQueue) X(MaxAppWQueue) X(CurAppRQueue)		\
	X(MaxAppRQueue) X(LimCwnd) X(LimSsthresh) X(LimRwin) X(LimMSS)	\
	X(OtherReductionsCV)

#define MAGNET_W10G_ENUM(name) MAGNET_W10G_##name,
#define MAGNET_W10G_NAME(name) "," #name

enum magnet_w10g_var {
	MAGNET_WEB10G_VARS(MAGNET_W10G_ENUM)
	MAGNET_W10G_NVARS
};

static const char magnet_web10g_columns[] =
	"Timestamp,CID,LocalAddress,LocalPort,RemAddress,RemPort"
	MAGNET_WEB10G_VARS(MAGNET_W10G_NAME) "\n";

MAGNET_STATIC_ASSERT(MAGNET_W10G_NVARS + 6 == MAGNET_WEB10G_NCOLS,
		     "122 web10g variables");
MAGNET_STATIC_ASSERT(sizeof(magnet_web10g_columns) <= MAGNET_WEB10G_LINE_MAX,
		     "the web10g header fits its buffer");

int magnet_format_web10g_header(char *buf)
{
	return snprintf(buf, MAGNET_WEB10G_LINE_MAX, "%s",
			magnet_web10g_columns);
}

/* Linux sk_state (TCP_ESTABLISHED 1 .. TCP_NEW_SYN_RECV 12) -> RFC 4898 */
static const __u8 magnet_w10g_state[] = {
	[1] = 5,	/* ESTABLISHED -> established */
	[2] = 3,	/* SYN_SENT -> synSent */
	[3] = 4,	/* SYN_RECV -> synReceived */
	[4] = 6,	/* FIN_WAIT1 -> finWait1 */
	[5] = 7,	/* FIN_WAIT2 -> finWait2 */
	[6] = 11,	/* TIME_WAIT -> timeWait */
	[7] = 1,	/* CLOSE -> closed */
	[8] = 8,	/* CLOSE_WAIT -> closeWait */
	[9] = 9,	/* LAST_ACK -> lastAck */
	[10] = 2,	/* LISTEN -> listen */
	[11] = 10,	/* CLOSING -> closing */
	[12] = 4,	/* NEW_SYN_RECV -> synReceived */
};

/* RFC 4898 enumerations */
#define MAGNET_W10G_TRUE 1		/* TruthValue */
#define MAGNET_W10G_FALSE 2
#define MAGNET_W10G_ENABLED 1		/* TcpEStatsNegotiated */
#define MAGNET_W10G_PEER_DISABLED 3

#define MAGNET_U32_MAX 0xffffffffULL

/* a Gauge32: latches at its maximum */
static __u64 magnet_gauge32(__u64 v)
{
	return v > MAGNET_U32_MAX ? MAGNET_U32_MAX : v;
}

static __u64 magnet_negotiated(const struct magnet_record *r, __u8 opt)
{
	return (r->opts & opt) ? MAGNET_W10G_ENABLED :
				 MAGNET_W10G_PEER_DISABLED;
}

/*
 * Variable @var of record @r into *@v, in RFC 4898 units. Returns 0 when
 * the record has no honest value for it: the column stays empty.
 * docs/web10g.md documents every choice.
 */
static __always_inline int magnet_w10g_value(const struct magnet_record *r,
					     const struct magnet_v3_limit *lim,
					     unsigned int var, __u64 *v)
{
	/* from the limit part: the kernel's chronographs, in ms (µs /
	 * 1000, truncated), its reordering state */
	switch (var) {
	case MAGNET_W10G_SndLimTimeRwin:
		if (!lim)
			return 0;
		*v = (__u64)lim->rwnd_limited * lim->jiffy_us / 1000U;
		return 1;
	case MAGNET_W10G_SndLimTimeCwnd:
		if (!lim)
			return 0;
		*v = (__u64)lim->busy * lim->jiffy_us / 1000U;
		return 1;
	case MAGNET_W10G_SndLimTimeSnd:
		if (!lim)
			return 0;
		*v = (__u64)lim->sndbuf_limited * lim->jiffy_us / 1000U;
		return 1;
	case MAGNET_W10G_RetranThresh:
		if (!lim)
			return 0;
		*v = lim->reordering;
		return 1;
	case MAGNET_W10G_DSACKDups:
		if (!lim)
			return 0;
		*v = lim->dsack_dups;
		return 1;
	}
	if (var == MAGNET_W10G_State) {
		if (!(r->flags & MAGNET_RF_SOCK) ||
		    r->state >= sizeof(magnet_w10g_state) ||
		    !magnet_w10g_state[r->state])
			return 0;
		*v = magnet_w10g_state[r->state];
		return 1;
	}
	if (!(r->flags & MAGNET_RF_TCP))
		return 0;

	switch (var) {
	case MAGNET_W10G_SegsOut:
		*v = r->segs_out;
		break;
	case MAGNET_W10G_DataSegsOut:
		*v = r->data_segs_out;
		break;
	case MAGNET_W10G_DataOctetsOut:		/* Counter32: low 32 bits */
		*v = r->bytes_sent & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCDataOctetsOut:
		*v = r->bytes_sent;
		break;
	case MAGNET_W10G_SegsRetrans:
		*v = r->total_retrans;
		break;
	case MAGNET_W10G_OctetsRetrans:
		*v = r->bytes_retrans & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_SegsIn:
		*v = r->segs_in;
		break;
	case MAGNET_W10G_DataSegsIn:
		*v = r->data_segs_in;
		break;
	case MAGNET_W10G_DataOctetsIn:
	case MAGNET_W10G_ThruOctetsReceived:
		*v = r->bytes_received & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCDataOctetsIn:
	case MAGNET_W10G_HCThruOctetsReceived:
		*v = r->bytes_received;
		break;
	case MAGNET_W10G_CurMSS:
		*v = r->mss;
		break;
	case MAGNET_W10G_PipeSize:
		/* flight size; RFC 4898: "while not in recovery, ...
		 * SND.NXT minus SND.UNA". In recovery Linux's pipe needs
		 * sacked_out and lost_out, which the record lacks.
		 */
		if (r->ca_state != MAGNET_CA_OPEN &&
		    r->ca_state != MAGNET_CA_CWR)
			return 0;
		*v = (__u32)(r->snd_nxt - r->snd_una);
		break;
	case MAGNET_W10G_SmoothedRTT:
		*v = r->srtt_us / 1000U;
		break;
	case MAGNET_W10G_CurRTO:
		*v = r->rto_us / 1000U;
		break;
	case MAGNET_W10G_CurCwnd:
		*v = magnet_gauge32((__u64)r->cwnd * r->mss);
		break;
	case MAGNET_W10G_CurSsthresh:
		*v = magnet_gauge32((__u64)r->ssthresh * r->mss);
		break;
	case MAGNET_W10G_CurRwinSent:
		*v = r->rcv_wnd;
		break;
	case MAGNET_W10G_CurRwinRcvd:
		*v = r->snd_wnd;
		break;
	case MAGNET_W10G_SampleRTT:
		if (!r->rtt_us)
			return 0;
		*v = r->rtt_us / 1000U;
		break;
	case MAGNET_W10G_RTTVar:
		*v = r->rttvar_us / 1000U;
		break;
	case MAGNET_W10G_MinRTT:
		if (r->min_rtt_us == ~0U)
			return 0;
		*v = r->min_rtt_us / 1000U;
		break;
	case MAGNET_W10G_MSSSent:
		*v = r->advmss;
		break;
	case MAGNET_W10G_WinScaleSent:
		*v = r->wscale & 0xf;		/* rcv_wscale */
		break;
	case MAGNET_W10G_WinScaleRcvd:
		*v = r->wscale >> 4;		/* snd_wscale */
		break;
	case MAGNET_W10G_TimeStamps:
		*v = magnet_negotiated(r, MAGNET_OPT_TIMESTAMPS);
		break;
	case MAGNET_W10G_ECN:
		*v = magnet_negotiated(r, MAGNET_OPT_ECN);
		break;
	case MAGNET_W10G_WillSendSACK:
	case MAGNET_W10G_WillUseSACK:
		*v = magnet_negotiated(r, MAGNET_OPT_SACK);
		break;
	case MAGNET_W10G_Nagle:
		*v = (r->opts & MAGNET_OPT_NAGLE) ? MAGNET_W10G_TRUE :
						    MAGNET_W10G_FALSE;
		break;
	case MAGNET_W10G_InRecovery:
		*v = (r->ca_state == MAGNET_CA_RECOVERY ||
		      r->ca_state == MAGNET_CA_LOSS) ? MAGNET_W10G_TRUE :
						       MAGNET_W10G_FALSE;
		break;
	case MAGNET_W10G_CurRetxQueue:
		/* sent, not yet cumulatively acked: Linux's rtx queue */
		*v = (__u32)(r->snd_nxt - r->snd_una);
		break;
	case MAGNET_W10G_SndUna:
		*v = r->snd_una;
		break;
	case MAGNET_W10G_SndNxt:
		*v = r->snd_nxt;
		break;
	case MAGNET_W10G_ThruOctetsAcked:
		*v = r->bytes_acked & MAGNET_U32_MAX;
		break;
	case MAGNET_W10G_HCThruOctetsAcked:
		*v = r->bytes_acked;
		break;
	case MAGNET_W10G_RcvNxt:
		*v = r->rcv_nxt;
		break;
	case MAGNET_W10G_CurAppWQueue:
		/* written by the application, not yet sent */
		*v = (__u32)(r->write_seq - r->snd_nxt);
		break;
	case MAGNET_W10G_CurAppRQueue:
		/* received in order, not yet read */
		*v = (__u32)(r->rcv_nxt - r->copied_seq);
		break;
	default:
		return 0;
	}
	return 1;
}

/*
 * The variables magnet_w10g_value() can give (State and the cases of its
 * switch), in column order. Every other column is always empty: written
 * as a bare comma, without asking (most of the 122 are; asking each cost
 * a web10g line more than half its instructions). magnet_format_web10g
 * asks for each of these by a constant, so that the compiler reduces
 * magnet_w10g_value() to the one case. test_web10g checks that
 * a record with every field set fills exactly the variables
 * docs/web10g.md lists.
 */
#define MAGNET_W10G_FILLED(X) X(SegsOut) X(DataSegsOut)	\
	X(DataOctetsOut) X(HCDataOctetsOut) X(SegsRetrans) X(OctetsRetrans)	\
	X(SegsIn) X(DataSegsIn) X(DataOctetsIn) X(HCDataOctetsIn) X(CurMSS)	\
	X(PipeSize) X(SmoothedRTT) X(CurRTO) X(CurCwnd) X(CurSsthresh)	\
	X(CurRwinSent) X(CurRwinRcvd) X(SndLimTimeRwin) X(SndLimTimeCwnd)	\
	X(SndLimTimeSnd) X(RetranThresh) X(SampleRTT) X(RTTVar) X(MinRTT)	\
	X(MSSSent) X(WinScaleSent) X(WinScaleRcvd) X(TimeStamps) X(ECN)	\
	X(WillSendSACK) X(WillUseSACK) X(State) X(Nagle) X(InRecovery)	\
	X(DSACKDups) X(CurRetxQueue) X(SndUna) X(SndNxt) X(ThruOctetsAcked)	\
	X(HCThruOctetsAcked) X(RcvNxt) X(ThruOctetsReceived)	\
	X(HCThruOctetsReceived) X(CurAppWQueue) X(CurAppRQueue)

#define MAGNET_W10G_ONE(name) + 1
/* the number of variables in the list */
#define MAGNET_W10G_NFILLED (0 MAGNET_W10G_FILLED(MAGNET_W10G_ONE))

/*
 * The longest line fits, by construction: the first six columns (time
 * "18446744073.709551" at most, CID, two IPv6 addresses and ports, 130
 * bytes with their commas), a comma per variable, 20 digits per filled
 * one, 7 bytes magnet_put_commas() may write past its commas, "\n\0".
 * test_web10g prints the longest it makes.
 */
MAGNET_STATIC_ASSERT(130 + MAGNET_W10G_NVARS + 20 * MAGNET_W10G_NFILLED +
		     7 + 2 <= MAGNET_WEB10G_LINE_MAX,
		     "the longest web10g line fits its buffer");

int magnet_web10g_has_line(const struct magnet_record *r)
{
	if (r->event != MAGNET_EV_TCP_OUT && r->event != MAGNET_EV_TCP_IN)
		return 0;
	/* web10g describes connections: a listener (TCP_LISTEN, 10) receiving
	 * SYNs has no connection counters, and would repeat the same line */
	return !((r->flags & MAGNET_RF_SOCK) && r->state == 10);
}

/*
 * @n commas, 8 bytes at a time: may write up to 7 bytes past them, which
 * the caller leaves room for.
 */
static __always_inline char *magnet_put_commas(char *p, unsigned int n)
{
	static const char c8[8] = { ',', ',', ',', ',', ',', ',', ',', ',' };

	while (n > 8) {
		memcpy(p, c8, 8);
		p += 8;
		n -= 8;
	}
	memcpy(p, c8, 8);
	return p + n;
}

/* %llu as a call: inlined in each of the 46 columns, the emitters would
 * multiply the function's code */
static char *magnet_put_u64_call(char *p, __u64 v)
{
	return magnet_put_u64(p, v);
}

int magnet_format_web10g(char *buf, const struct magnet_record *r,
			 const struct magnet_v3_limit *lim,
			 __s64 realtime_offset_ns, __u32 cid)
{
	__u32 rem_ns;
	__u64 sec, v;
	unsigned int col;
	char *p = buf;

	if (!magnet_web10g_has_line(r))
		return 0;

	sec = magnet_wall(r->ts_ns, realtime_offset_ns, &rem_ns);
	p = magnet_put_u64(p, sec);
	*p++ = '.';
	p = magnet_put_u32_pad(p, rem_ns / 1000U, 6);
	*p++ = ',';
	p = magnet_put_u32(p, cid);
	*p++ = ',';
	p = magnet_put_addr(p, r->family, r->laddr);
	*p++ = ',';
	p = magnet_put_u32(p, r->lport);
	*p++ = ',';
	p = magnet_put_addr(p, r->family, r->raddr);
	*p++ = ',';
	p = magnet_put_u32(p, r->rport);
	col = 0;
#define MAGNET_W10G_COL(name)						\
	p = magnet_put_commas(p, MAGNET_W10G_##name - col + 1);		\
	col = MAGNET_W10G_##name + 1;					\
	if (magnet_w10g_value(r, lim, MAGNET_W10G_##name, &v))		\
		p = magnet_put_u64_call(p, v);
	MAGNET_W10G_FILLED(MAGNET_W10G_COL)
#undef MAGNET_W10G_COL
	p = magnet_put_commas(p, MAGNET_W10G_NVARS - col);
	*p++ = '\n';
	*p = '\0';
	return (int)(p - buf);
}
