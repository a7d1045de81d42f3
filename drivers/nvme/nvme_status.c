/* Completion status codes by name (NVMe 1.4 section 4.6.1), so a failed
 * command is reported the way the specification and a drive's datasheet
 * say it. */
#include "nvme.h"
#include "nvme_regs.h"

struct status_name {
    uint8_t sct, sc;
    const char *name;
};

/* Section 4.6.1.2 and its subsections: generic command status (with the
 * NVM command set's 80h..84h), command specific status, media and data
 * integrity errors, path related status. */
static const struct status_name status_names[] = {
    { NVME_SCT_GENERIC, 0x00, "Successful Completion" },
    { NVME_SCT_GENERIC, 0x01, "Invalid Command Opcode" },
    { NVME_SCT_GENERIC, 0x02, "Invalid Field in Command" },
    { NVME_SCT_GENERIC, 0x03, "Command ID Conflict" },
    { NVME_SCT_GENERIC, 0x04, "Data Transfer Error" },
    { NVME_SCT_GENERIC, 0x05, "Aborted due to Power Loss Notification" },
    { NVME_SCT_GENERIC, 0x06, "Internal Error" },
    { NVME_SCT_GENERIC, 0x07, "Command Abort Requested" },
    { NVME_SCT_GENERIC, 0x08, "Aborted due to SQ Deletion" },
    { NVME_SCT_GENERIC, 0x09, "Aborted due to Failed Fused Command" },
    { NVME_SCT_GENERIC, 0x0a, "Aborted due to Missing Fused Command" },
    { NVME_SCT_GENERIC, 0x0b, "Invalid Namespace or Format" },
    { NVME_SCT_GENERIC, 0x0c, "Command Sequence Error" },
    { NVME_SCT_GENERIC, 0x0d, "Invalid SGL Segment Descriptor" },
    { NVME_SCT_GENERIC, 0x0e, "Invalid Number of SGL Descriptors" },
    { NVME_SCT_GENERIC, 0x0f, "Data SGL Length Invalid" },
    { NVME_SCT_GENERIC, 0x10, "Metadata SGL Length Invalid" },
    { NVME_SCT_GENERIC, 0x11, "SGL Descriptor Type Invalid" },
    { NVME_SCT_GENERIC, 0x12, "Invalid Use of Controller Memory Buffer" },
    { NVME_SCT_GENERIC, 0x13, "PRP Offset Invalid" },
    { NVME_SCT_GENERIC, 0x14, "Atomic Write Unit Exceeded" },
    { NVME_SCT_GENERIC, 0x15, "Operation Denied" },
    { NVME_SCT_GENERIC, 0x16, "SGL Offset Invalid" },
    { NVME_SCT_GENERIC, 0x18, "Host Identifier Inconsistent Format" },
    { NVME_SCT_GENERIC, 0x19, "Keep Alive Timer Expired" },
    { NVME_SCT_GENERIC, 0x1a, "Keep Alive Timeout Invalid" },
    { NVME_SCT_GENERIC, 0x1b, "Aborted due to Preempt and Abort" },
    { NVME_SCT_GENERIC, 0x1c, "Sanitize Failed" },
    { NVME_SCT_GENERIC, 0x1d, "Sanitize In Progress" },
    { NVME_SCT_GENERIC, 0x1e, "SGL Data Block Granularity Invalid" },
    { NVME_SCT_GENERIC, 0x1f, "Command Not Supported for Queue in CMB" },
    { NVME_SCT_GENERIC, 0x20, "Namespace is Write Protected" },
    { NVME_SCT_GENERIC, 0x21, "Command Interrupted" },
    { NVME_SCT_GENERIC, 0x22, "Transient Transport Error" },
    { NVME_SCT_GENERIC, 0x80, "LBA Out of Range" },
    { NVME_SCT_GENERIC, 0x81, "Capacity Exceeded" },
    { NVME_SCT_GENERIC, 0x82, "Namespace Not Ready" },
    { NVME_SCT_GENERIC, 0x83, "Reservation Conflict" },
    { NVME_SCT_GENERIC, 0x84, "Format In Progress" },

    { NVME_SCT_COMMAND_SPECIFIC, 0x00, "Completion Queue Invalid" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x01, "Invalid Queue Identifier" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x02, "Invalid Queue Size" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x03, "Abort Command Limit Exceeded" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x05, "Asynchronous Event Request Limit Exceeded" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x06, "Invalid Firmware Slot" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x07, "Invalid Firmware Image" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x08, "Invalid Interrupt Vector" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x09, "Invalid Log Page" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x0a, "Invalid Format" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x0c, "Invalid Queue Deletion" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x0d, "Feature Identifier Not Saveable" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x0e, "Feature Not Changeable" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x0f, "Feature Not Namespace Specific" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x14, "Overlapping Range" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x15, "Namespace Insufficient Capacity" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x16, "Namespace Identifier Unavailable" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x18, "Namespace Already Attached" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x19, "Namespace Is Private" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x1a, "Namespace Not Attached" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x1b, "Thin Provisioning Not Supported" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x1c, "Controller List Invalid" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x80, "Conflicting Attributes" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x81, "Invalid Protection Information" },
    { NVME_SCT_COMMAND_SPECIFIC, 0x82, "Attempted Write to Read Only Range" },
    /* Zoned Namespace Command Set 1.1, section 3.4.1: what a zoned
     * namespace answers to a write that is not at its zone's write
     * pointer, or into a zone in the wrong state. */
    { NVME_SCT_COMMAND_SPECIFIC, 0xb8, "Zone Boundary Error" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xb9, "Zone Is Full" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xba, "Zone Is Read Only" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xbb, "Zone Is Offline" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xbc, "Zone Invalid Write" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xbd, "Too Many Active Zones" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xbe, "Too Many Open Zones" },
    { NVME_SCT_COMMAND_SPECIFIC, 0xbf, "Invalid Zone State Transition" },

    { NVME_SCT_MEDIA, 0x80, "Write Fault" },
    { NVME_SCT_MEDIA, 0x81, "Unrecovered Read Error" },
    { NVME_SCT_MEDIA, 0x82, "End-to-end Guard Check Error" },
    { NVME_SCT_MEDIA, 0x83, "End-to-end Application Tag Check Error" },
    { NVME_SCT_MEDIA, 0x84, "End-to-end Reference Tag Check Error" },
    { NVME_SCT_MEDIA, 0x85, "Compare Failure" },
    { NVME_SCT_MEDIA, 0x86, "Access Denied" },
    { NVME_SCT_MEDIA, 0x87, "Deallocated or Unwritten Logical Block" },

    { NVME_SCT_PATH, 0x00, "Internal Path Error" },
    { NVME_SCT_PATH, 0x01, "Asymmetric Access Persistent Loss" },
    { NVME_SCT_PATH, 0x02, "Asymmetric Access Inaccessible" },
    { NVME_SCT_PATH, 0x03, "Asymmetric Access Transition" },
    { NVME_SCT_PATH, 0x60, "Controller Pathing Error" },
    { NVME_SCT_PATH, 0x70, "Host Pathing Error" },
    { NVME_SCT_PATH, 0x71, "Command Aborted By Host" },
};

const char *nvme_status_name(unsigned sct, unsigned sc)
{
    for (size_t i = 0; i < ARRAY_SIZE(status_names); i++)
        if (status_names[i].sct == sct && status_names[i].sc == sc)
            return status_names[i].name;
    if (sct == NVME_SCT_VENDOR)
        return "Vendor Specific";
    /* Section 4.6.1.2: C0h..FFh of each type are vendor specific. */
    if (sc >= 0xc0)
        return "Vendor Specific";
    return "Unknown Status";
}

void nvme_status_detail(uint16_t status, char *buf, size_t len)
{
    unsigned sct = NVME_CQE_SCT(status), sc = NVME_CQE_SC(status);

    snprintf(buf, len, "SCT %Xh SC %02Xh: %s", sct, sc, nvme_status_name(sct, sc));
}
