/* LSI Fusion-MPT system interface registers (MPI 1.5 specification; the same doorbell, write-sequence, diagnostic and interrupt
 * registers carry over to MPI 2.x, whose queues differ). 32-bit registers
 * in the first memory BAR (also mirrored in the I/O BAR). */
#ifndef BAREMARK_MPT_REGS_H
#define BAREMARK_MPT_REGS_H

/* ---- Register offsets ----------------------------------------------------------------- */
#define MPT_REG_DOORBELL 0x00        /* IOC state / handshake data */
#define MPT_REG_WRITE_SEQUENCE 0x04  /* key sequence that unlocks the diagnostic register */
#define MPT_REG_DIAGNOSTIC 0x08      /* host diagnostic: adapter reset */
#define MPT_REG_HOST_INT_STATUS 0x30 /* HIS */
#define MPT_REG_HOST_INT_MASK 0x34   /* HIM */
#define MPT_REG_REQUEST_FIFO 0x40    /* MPI 1: post a request frame address */
#define MPT_REG_REPLY_FIFO 0x44      /* MPI 1: read = reply post FIFO, write = reply free FIFO */
#define MPT_REG_REQUEST_HI_PRI_FIFO 0x48 /* MPI 1: high-priority requests (task management) */
/* MPI 2 queue registers (mpi2.h MPI2_SYSTEM_INTERFACE_REGS). */
#define MPT2_REG_REPLY_FREE_HOST_INDEX 0x48   /* last reply free queue entry the host filled */
#define MPT2_REG_REPLY_POST_HOST_INDEX 0x6c   /* next reply descriptor the host will read */
#define MPT2_REG_REQUEST_DESCRIPTOR_POST_LOW 0xc0
#define MPT2_REG_REQUEST_DESCRIPTOR_POST_HIGH 0xc4 /* the IOC takes the descriptor on this write */
#define MPT2_REPLY_POST_HOST_INDEX_MASK 0x00ffffffu

/* ---- Doorbell (read): IOC state and who initialised it ------------------------------------- */
#define MPT_IOC_STATE_MASK 0xf0000000u
#define  MPT_IOC_STATE_RESET 0x00000000u
#define  MPT_IOC_STATE_READY 0x10000000u
#define  MPT_IOC_STATE_OPERATIONAL 0x20000000u
#define  MPT_IOC_STATE_FAULT 0x40000000u
#define MPT_DOORBELL_USED 0x08000000u      /* a handshake is in progress */
#define MPT_DOORBELL_WHO_INIT_MASK 0x07000000u
#define MPT_DOORBELL_WHO_INIT_SHIFT 24
#define MPT_DOORBELL_DATA_MASK 0x0000ffffu /* handshake reply word / fault code */

/* ---- Doorbell (write): a function and its argument ------------------------------------------- */
#define MPT_DOORBELL_FUNCTION_SHIFT 24
#define MPT_DOORBELL_ADD_DWORDS_SHIFT 16   /* handshake: request length in dwords */
#define MPT_FUNC_IOC_MESSAGE_UNIT_RESET 0x40
#define MPT_FUNC_IO_UNIT_RESET 0x41
#define MPT_FUNC_HANDSHAKE 0x42

/* ---- Write sequence keys (the low nibble of each write) ------------------------------------------
 * MPI 1 (mpi_ioc.h MPI_WRSEQ_*; Linux mptbase mpt_diag_reset writes 0xff
 * first, then keys 4 b 2 7 d). MPI 2 (mpi2.h MPI2_WRSEQ_*) puts a flush
 * key 0 before six keys f 4 b 2 7 d (Linux mpt3sas
 * mpt3sas_base_unlock_and_get_host_diagnostic, FreeBSD mps
 * mpt2_reset_magic), and locks the register again with the flush key. */
#define MPT1_WRSEQ_FLUSH 0xff              /* no key: restarts the sequence, locks */
#define MPT2_WRSEQ_FLUSH 0x00              /* MPI2_WRSEQ_FLUSH_KEY_VALUE */
#define MPT2_WRSEQ_KEY1 0x0f               /* MPI2_WRSEQ_1ST_KEY_VALUE */
#define MPT_WRSEQ_KEY1 0x04                /* MPI 1 first key = MPI 2 second */
#define MPT_WRSEQ_KEY2 0x0b
#define MPT_WRSEQ_KEY3 0x02
#define MPT_WRSEQ_KEY4 0x07
#define MPT_WRSEQ_KEY5 0x0d
/* Unlock attempts and the wait after each (mpt3sas: more than 20 tries
 * fail; FreeBSD mps_diag_reset: 20 tries, 100 ms apart). */
#define MPT_WRSEQ_TRIES 20
#define MPT_WRSEQ_WAIT_MS 100
/* After RESET_ADAPTER (mpi2.h "Hard Reset delay timings"): the first
 * HostDiagnostic read no sooner than 50 ms, later reads 256 ms apart
 * (MPI2_HARD_RESET_PCIE_FIRST/SECOND_READ_DELAY_MICRO_SEC, as mpt3sas
 * _base_diag_reset waits). */
#define MPT_DIAG_FIRST_READ_DELAY_MS 50
#define MPT_DIAG_SECOND_READ_DELAY_MS 256

/* ---- Diagnostic register bits ------------------------------------------------------------------ */
#define MPT_DIAG_DRWE 0x00000080u          /* diagnostic register write enabled */
#define MPT_DIAG_RESET_HISTORY 0x00000020u
#define MPT_DIAG_RESET_ADAPTER 0x00000004u
#define MPT_DIAG_DISABLE_ARM 0x00000002u

/* ---- Host interrupt status / mask --------------------------------------------------------------- */
#define MPT_HIS_IOP_DOORBELL_STATUS 0x80000000u /* set until the IOC has taken a doorbell word */
#define MPT_HIS_REPLY_INTERRUPT 0x00000008u
#define MPT_HIS_DOORBELL_INTERRUPT 0x00000001u  /* the IOC wants the host at the doorbell */
#define MPT_HIM_REPLY_MASK 0x00000008u
#define MPT_HIM_DOORBELL_MASK 0x00000001u

/* ---- Reply FIFO values (MPI 1) ------------------------------------------------------------------ */
#define MPT_REPLY_FIFO_EMPTY 0xffffffffu
#define MPT_REPLY_ADDRESS_BIT 0x80000000u  /* else a context ("turbo") reply */
#define MPT_CONTEXT_REPLY_TYPE_MASK 0x60000000u
#define MPT_CONTEXT_REPLY_CONTEXT_MASK 0x0000ffffu /* the request index we put in MsgContext */

#endif
