export default function ProfileEdit() {
  return <main className="page">ProfileEdit</main>;
}
